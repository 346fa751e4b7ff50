package manifest

import (
	"regexp"
	"strconv"
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
