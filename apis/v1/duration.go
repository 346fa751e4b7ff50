package v1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Never is the value of a NillableDuration that never elapses.
const Never = "Never"

// NillableDuration is a duration that may also be "Never". It has three states:
//
//   - unset (the zero value): IsZero is true; it is omitted when encoded (with the
//     omitzero tag) and replaced by SetDefaults;
//   - Never: Duration is nil and Raw is non-empty;
//   - a duration: Duration is set.
//
// Raw keeps the JSON text a duration was decoded from ("720h"), so that encoding a decoded
// object writes back what the user wrote rather than Go's "720h0m0s".
type NillableDuration struct {
	Duration *time.Duration
	// Raw is the JSON string it was decoded from, kept for round-trips.
	Raw []byte
}

// NewNillableDuration returns a NillableDuration holding d.
func NewNillableDuration(d time.Duration) NillableDuration {
	return NillableDuration{Duration: &d}
}

// NeverDuration returns the "Never" NillableDuration.
func NeverDuration() NillableDuration {
	return NillableDuration{Raw: []byte(`"Never"`)}
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
		return NeverDuration(), nil
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

// IsZero reports whether the duration was never set. encoding/json's omitzero uses it.
func (d NillableDuration) IsZero() bool { return d.Duration == nil && len(d.Raw) == 0 }

// String returns "Never", the text the duration was written as, or "" when unset.
func (d NillableDuration) String() string {
	switch {
	case d.IsZero():
		return ""
	case d.IsNever():
		return Never
	}
	if s, ok := d.rawText(); ok {
		return s
	}
	return d.Duration.String()
}

// rawText returns the decoded Raw string when it still describes Duration.
func (d NillableDuration) rawText() (string, bool) {
	if d.Duration == nil || len(d.Raw) == 0 {
		return "", false
	}
	var s string
	if err := json.Unmarshal(d.Raw, &s); err != nil {
		return "", false
	}
	parsed, err := time.ParseDuration(s)
	if err != nil || parsed != *d.Duration {
		return "", false
	}
	return s, true
}

// UnmarshalJSON accepts "Never", a Go duration string, or null (unset).
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*d = NillableDuration{}
		return nil
	}
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

// MarshalJSON writes "Never", the duration (as it was written when it was decoded), or
// null when unset.
func (d NillableDuration) MarshalJSON() ([]byte, error) {
	switch {
	case d.IsZero():
		return []byte("null"), nil
	case d.IsNever():
		return []byte(`"Never"`), nil
	}
	return json.Marshal(d.String())
}
