package v1

import (
	"encoding/json"
	"fmt"
	"time"
)

// Never is the value of a NillableDuration that never elapses.
const Never = "Never"

// NillableDuration is a duration that may also be "Never" (Duration nil).
type NillableDuration struct {
	Duration *time.Duration
	// Raw is the text it was decoded from, kept for round-trips.
	Raw []byte
}

// MustParseNillableDuration parses "Never" or a Go duration, panicking on error.
func MustParseNillableDuration(s string) NillableDuration {
	d, err := ParseNillableDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

// ParseNillableDuration parses "Never" or a Go duration such as "720h".
func ParseNillableDuration(s string) (NillableDuration, error) {
	if s == Never {
		return NillableDuration{Raw: []byte(`"Never"`)}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return NillableDuration{}, fmt.Errorf("invalid duration %q (want e.g. \"30s\", \"720h\" or \"Never\"): %w", s, err)
	}
	raw, _ := json.Marshal(s)
	return NillableDuration{Duration: &d, Raw: raw}, nil
}

// IsNever reports whether the duration is "Never".
func (d NillableDuration) IsNever() bool { return d.Duration == nil && len(d.Raw) > 0 }

// IsZero reports whether the duration was never set.
func (d NillableDuration) IsZero() bool { return d.Duration == nil && len(d.Raw) == 0 }

// UnmarshalJSON accepts "Never" or a Go duration string.
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"720h\" or \"Never\", got %s", string(b))
	}
	parsed, err := ParseNillableDuration(s)
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// MarshalJSON writes "Never" or the duration.
func (d NillableDuration) MarshalJSON() ([]byte, error) {
	if d.Duration == nil {
		if len(d.Raw) == 0 {
			return []byte(`""`), nil
		}
		return []byte(`"Never"`), nil
	}
	return json.Marshal(d.Duration.String())
}
