package manifest

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// goYAMLFloat is go-yaml's float syntax as its resolver writes it.
var goYAMLFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// TestYAMLFloatSyntaxAsRegexp: the hand-written float syntax check is go-yaml's expression.
func TestYAMLFloatSyntaxAsRegexp(t *testing.T) {
	for _, s := range []string{"", ".", "1", "1.", ".5", "-.5", "+1e5", "1e", "1e+", "1.5E-3", "e5", "1x", "--1", "1.2.3", "10.0.71.252"} {
		if got, want := yamlFloatSyntax(s), goYAMLFloat.MatchString(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("0123456789.eE+-_xa")), 0, 10, -1).Draw(t, "s")
		if got, want := yamlFloatSyntax(s), goYAMLFloat.MatchString(s); got != want {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	})
}

// resolveDotRef is how resolvePlain read a scalar starting with "." before it skipped
// ParseFloat on text without a digit.
func resolveDotRef(s string) (isString, ok bool) {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false, false
	}
	switch s {
	case ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN":
		return false, false
	}
	return true, true
}

// TestResolveDotAsParseFloat: scalars starting with "." resolve as ParseFloat reads them.
func TestResolveDotAsParseFloat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := "." + rapid.StringOfN(rapid.SampledFrom([]rune("0123456789.eEinfaINFAxp_+-")), 0, 8, -1).Draw(t, "s")
		_, isString, ok := resolvePlain([]byte(s))
		if wantString, wantOK := resolveDotRef(s); isString != wantString || ok != wantOK {
			t.Fatalf("%q: string %v ok %v, want %v %v", s, isString, ok, wantString, wantOK)
		}
	})
	if _, isString, ok := resolvePlain([]byte(".")); !isString || !ok {
		t.Error(`"." is not a string`)
	}
}

// resolveNumberRef is how resolvePlain read a scalar starting with a digit or sign before
// numberLike let it answer "string" early.
func resolveNumberRef(s string) (v string, isString, ok bool) {
	if canonicalInt([]byte(s)) {
		return s, false, true
	}
	str := strings.ReplaceAll(s, "_", "")
	if yamlTimestamp(s) || goYAMLFloat.MatchString(str) || yamlBinary(str) {
		return "", false, false
	}
	if _, err := strconv.ParseInt(str, 0, 64); err == nil {
		return "", false, false
	}
	if _, err := strconv.ParseUint(str, 0, 64); err == nil {
		return "", false, false
	}
	return "", true, true
}

// TestResolveNumbersAsBefore: scalars starting with a digit or a sign (quantities, numbers in
// every base, floats, timestamps) resolve as go-yaml's rules, written out plainly, read them.
func TestResolveNumbersAsBefore(t *testing.T) {
	for _, s := range []string{"1910m", "28793528Ki", "10.0.71.252", "720h", "0x1F", "0b101", "0o17", "1_000", "2026-01-02", "2026-01-02T03:04:05Z", "2026-1-2 3:4:5.5", "1e3", "-.5", "+1", "0b0ccd3f-6a7c"} {
		v, isString, ok := resolvePlain([]byte(s))
		if wv, ws, wok := resolveNumberRef(s); string(v) != wv || isString != ws || ok != wok {
			t.Errorf("%q: %q %v %v, want %q %v %v", s, v, isString, ok, wv, ws, wok)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		first := rapid.SampledFrom([]rune("+-0123456789")).Draw(t, "first")
		s := string(first) + rapid.StringOfN(rapid.SampledFrom([]rune("0123456789+-_.: xXoObBeEaAfFtTzZmKiGhs")), 0, 12, -1).Draw(t, "s")
		v, isString, ok := resolvePlain([]byte(s))
		if wv, ws, wok := resolveNumberRef(s); string(v) != wv || isString != ws || ok != wok {
			t.Fatalf("%q: %q %v %v, want %q %v %v", s, v, isString, ok, wv, ws, wok)
		}
	})
}
