package catalog

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	yaml2 "sigs.k8s.io/yaml/goyaml.v2"
)

// nonFiniteError names the first NaN or infinite number (.nan, .inf) of a YAML catalog,
// which the JSON the file is decoded through cannot hold ("json: unsupported value: NaN"
// named nothing). Nil when there is none.
func nonFiniteError(data []byte, source string) error {
	var v any
	if yaml2.Unmarshal(data, &v) != nil {
		return nil
	}
	m, ok := v.(map[any]any)
	if !ok {
		return nil
	}
	types, _ := m["instanceTypes"].([]any)
	for i, t := range types {
		where := fmt.Sprintf("instanceTypes[%d]", i)
		if tm, ok := t.(map[any]any); ok {
			if name, ok := tm["name"].(string); ok && name != "" {
				where += " (" + name + ")"
			}
		}
		if path, f := findNonFinite(t, ""); path != "" {
			return fmt.Errorf("%s: %s: %s: must be a finite number, got %v", source, where, path, f)
		}
	}
	if path, f := findNonFinite(v, ""); path != "" {
		return fmt.Errorf("%s: %s: must be a finite number, got %v", source, path, f)
	}
	return nil
}

// findNonFinite is the path of the first NaN or infinite float in v (map keys in order).
func findNonFinite(v any, path string) (string, float64) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return path, x
		}
	case []any:
		for i, e := range x {
			if p, f := findNonFinite(e, path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p, f
			}
		}
	case map[any]any:
		keys := make([]string, 0, len(x))
		byName := map[string]any{}
		for k, e := range x {
			ks := fmt.Sprint(k)
			keys = append(keys, ks)
			byName[ks] = e
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if p, f := findNonFinite(byName[k], sub); p != "" {
				return p, f
			}
		}
	}
	return "", 0
}

// MaxPrice is the highest offering price (dollars per hour) a catalog file may give: a
// million nodes at it still sum to a finite plan price (1e308 printed +Inf and no plan).
const MaxPrice = 1e9

// priceSyntaxError says why a price's text is not a number.
func priceSyntaxError(raw string, err error) string {
	text := raw
	quoted := len(raw) > 1 && raw[0] == '"'
	if quoted {
		if unq, uerr := strconv.Unquote(raw); uerr == nil {
			text = unq
		}
		_, err = strconv.ParseFloat(text, 64)
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return fmt.Sprintf("out of range: %s (at most %s)", text, maxPriceText)
	}
	if quoted && err == nil {
		return fmt.Sprintf("a quoted string, not a number: %s (write the price without quotes)", raw)
	}
	return "not a number: " + raw
}

const maxPriceText = "1e9"
