package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// jsonNumber draws a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
// large and tiny ones included (1e400 overflows a float64).
func jsonNumber(t *rapid.T, label string) string {
	var b strings.Builder
	if rapid.Bool().Draw(t, label+"-neg") {
		b.WriteByte('-')
	}
	if rapid.IntRange(0, 4).Draw(t, label+"-zero") == 0 {
		b.WriteByte('0')
	} else {
		b.WriteString(rapid.StringMatching(`[1-9][0-9]{0,30}`).Draw(t, label+"-int"))
	}
	if rapid.Bool().Draw(t, label+"-hasfrac") {
		b.WriteString("." + rapid.StringMatching(`[0-9]{1,20}`).Draw(t, label+"-frac"))
	}
	if rapid.Bool().Draw(t, label+"-hasexp") {
		b.WriteString(rapid.StringMatching(`[eE][+-]?[0-9]{1,4}`).Draw(t, label+"-exp"))
	}
	return b.String()
}

// TestYAMLNumbersOfJSONAreAsWritten: yamlNumberError finds nothing in valid JSON (no NaN or
// infinity, no number YAML reads otherwise than written), so Parse skips it for JSON: the
// shortcut changes no answer. Numbers go where the check looks: prices, and anywhere else.
func TestYAMLNumbersOfJSONAreAsWritten(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := func(label string) string { return jsonNumber(t, label) }
		doc := fmt.Sprintf(`{"instanceTypes": [{"name": "a", "capacity": {"cpu": "1"}, "extra": %s, `+
			`"offerings": [{"zone": "z", "capacityType": "spot", "price": %s}, {"zone": "z", "capacityType": "on-demand", "price": %s}]}], "other": [%s, {"k": %s}]}`,
			n("extra"), n("price1"), n("price2"), n("other"), n("nested"))
		if !json.Valid([]byte(doc)) {
			t.Fatalf("not JSON: %s", doc)
		}
		if err := yamlNumberError([]byte(doc), "cat.json"); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
	})
}
