package catalog

import (
	"fmt"
	"math"
	"regexp"
	"strconv"

	yaml3 "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxPrice is the highest price (dollars per hour) a catalog file or a spot-price file may
// give: a million nodes at it still sum to a finite plan price (1e308 printed +Inf and no
// plan).
const MaxPrice = 1e9

const maxPriceText = "1e9"

// MinMemory is the least memory capacity a catalog type may have. No node runs in less (the
// kubelet alone takes tens of MiB), and a count of bytes below it is a missing unit: memory: 8
// meant 8Gi, and so does any count of MiB or GiB written without its unit, which stays below
// 1Mi for every memory size there is.
var MinMemory = resource.MustParse("1Mi")

// decimal is a price as written: a plain decimal number. YAML reads 0x10, 017, 1_000 (and JSON
// parsers 0x1p-3) as numbers other than their text says, so those are refused.
var decimal = regexp.MustCompile(`^[+-]?((0|[1-9][0-9]*)(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parsePrice reads a price in dollars per hour: a decimal number from 0 to MaxPrice, above 0
// when positive (spot prices: EC2 never asks nothing). Errors wrap ErrPrice.
func parsePrice(text string, positive bool) (float64, error) {
	if !decimal.MatchString(text) {
		return 0, reasonf(ErrPrice, "not a decimal number: %s", text)
	}
	v, err := strconv.ParseFloat(text, 64)
	switch {
	case err != nil: // the syntax is right, so the value is out of float64's range
		return 0, reasonf(ErrPrice, "out of range: %s (at most %s)", text, maxPriceText)
	case positive && (v <= 0 || v > MaxPrice):
		return 0, reasonf(ErrPrice, "must be above 0 and at most %s dollars per hour, got %s", maxPriceText, text)
	case v < 0 || v > MaxPrice:
		return 0, reasonf(ErrPrice, "must be a finite number >= 0 and at most %s, got %s", maxPriceText, text)
	}
	return v, nil
}

// quotedPrice says why a price in quotes is refused: it is a string, or not a number at all.
func quotedPrice(raw string) error {
	if unq, err := strconv.Unquote(raw); err == nil && decimal.MatchString(unq) {
		if _, err := parsePrice(unq, false); err != nil {
			return err // YAML quotes a number too large for a float: 1e400
		}
		return reasonf(ErrPrice, "a quoted string, not a number: %s (write the price without quotes)", raw)
	}
	return reasonf(ErrPrice, "not a number: %s", raw)
}

// checkNodeQuantity refuses a capacity (or overhead) quantity that no node has: cpu in a
// binary unit (4Gi cores), a fraction of a whole unit (pods: 1.5, memory: 1.5 bytes), and, in
// capacity, memory below MinMemory. Errors wrap ErrQuantity.
func checkNodeQuantity(name corev1.ResourceName, q resource.Quantity, capacity bool) error {
	if name == corev1.ResourceCPU {
		if q.Format == resource.BinarySI {
			return reasonf(ErrQuantity, "%s: cpu counts cores, not bytes (write 4 or 4000m, not 4Gi)", q.String())
		}
		return nil
	}
	if whole := q.DeepCopy(); !whole.RoundUp(0) {
		return reasonf(ErrQuantity, "%s: not a whole number of %s", q.String(), unitOf(name))
	}
	if capacity && name == corev1.ResourceMemory && q.Cmp(MinMemory) < 0 {
		return reasonf(ErrQuantity, "%s bytes is less than any node has (at least %s): write the unit, as in %sGi", q.String(), MinMemory.String(), q.String())
	}
	return nil
}

func unitOf(name corev1.ResourceName) string {
	switch name {
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage:
		return "bytes"
	}
	return "units"
}

// yamlNumberError names the first number of a YAML catalog that its JSON form would not carry
// as written: a NaN or infinity anywhere (.nan, .inf: JSON has none, and "json: unsupported
// value: NaN" named nothing), or an offering's price that YAML reads as another number than
// its text (0x10, 017, 1_000). Nil when there is none, or when data is not YAML at all (the
// decoder then says why).
func yamlNumberError(data []byte, source string) error {
	var doc yaml3.Node
	if yaml3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	types := mappingValue(root, "instanceTypes")
	if types != nil && types.Kind == yaml3.SequenceNode {
		for i, t := range types.Content {
			e := &FieldError{Source: source, Entry: fmt.Sprintf("instanceTypes[%d]", i)}
			if name := mappingValue(t, "name"); name != nil && name.Kind == yaml3.ScalarNode {
				e.InstanceType = name.Value
			}
			if field, err := numberError(t, "", 0); err != nil {
				e.Field, e.Err = field, err
				return e
			}
		}
	}
	if field, err := numberError(root, "", 0); err != nil {
		return &FieldError{Source: source, Field: field, Err: err}
	}
	return nil
}

// numberError is the path and error of the first bad number under n (see yamlNumberError).
func numberError(n *yaml3.Node, path string, depth int) (string, error) {
	if n == nil || depth > 64 {
		return "", nil
	}
	switch n.Kind {
	case yaml3.AliasNode:
		return numberError(n.Alias, path, depth+1)
	case yaml3.ScalarNode:
		if n.Style&(yaml3.DoubleQuotedStyle|yaml3.SingleQuotedStyle) != 0 {
			return "", nil
		}
		if n.ShortTag() == "!!float" {
			var f float64
			if n.Decode(&f) == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				err := fmt.Errorf("must be a finite number, got %v", f)
				if isPrice(path) {
					err = &reason{kind: ErrPrice, msg: err.Error()}
				}
				return path, err
			}
		}
		if isPrice(path) && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") && !decimal.MatchString(n.Value) {
			return path, reasonf(ErrPrice, "not a decimal number: %s (YAML reads it as another number)", n.Value)
		}
	case yaml3.SequenceNode:
		for i, c := range n.Content {
			if p, err := numberError(c, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return p, err
			}
		}
	case yaml3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			sub := n.Content[i].Value
			if path != "" {
				sub = path + "." + sub
			}
			if p, err := numberError(n.Content[i+1], sub, depth+1); err != nil {
				return p, err
			}
		}
	}
	return "", nil
}

// isPrice reports whether a path within an instance type is an offering's price.
var offeringPrice = regexp.MustCompile(`^offerings\[[0-9]+\]\.price$`)

func isPrice(path string) bool { return offeringPrice.MatchString(path) }

// mappingValue is the value of key in mapping n, or nil.
func mappingValue(n *yaml3.Node, key string) *yaml3.Node {
	if n == nil || n.Kind != yaml3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
