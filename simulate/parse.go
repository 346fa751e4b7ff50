package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/manifest"
)

// TimelineError is a malformed timeline: the file, where in it (an event index and field,
// "events[3].scale.replicas", or "" for the document) and what is wrong.
type TimelineError struct {
	File  string
	Field string
	Err   error
}

func (e *TimelineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.File, e.Field, e.Err)
}

func (e *TimelineError) Unwrap() error { return e.Err }

// MaxTimelineEvents caps the events of one timeline.
const MaxTimelineEvents = 100000

// ParseTimeline reads a Timeline document (YAML or JSON) from data, read from file (the name
// errors give). Decoding is strict: an unknown or duplicated field, a field of the wrong
// type, an event with no action or two, a duration that does not parse, an event after the
// end, a selector that does not parse or an object an apply cannot replace is a
// *TimelineError naming the file, the event index and the field. read gives the bytes of a
// file an apply names (`apply: {file: nodepools.yaml}`, relative to file's directory); nil
// refuses such events. ParseTimeline does no I/O of its own.
func ParseTimeline(data []byte, file string, read func(name string) ([]byte, error)) (*Timeline, error) {
	fail := func(field string, err error) error { return &TimelineError{File: file, Field: field, Err: err} }
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fail("", err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(js, &doc); err != nil || doc == nil {
		return nil, fail("", errors.New("not a Timeline object"))
	}
	if err := knownFields(doc, "apiVersion", "kind", "metadata", "duration", "events"); err != nil {
		return nil, fail("", err)
	}
	var apiVersion, kind string
	if err := decode(doc["apiVersion"], &apiVersion); err != nil || apiVersion != APIVersion {
		return nil, fail("apiVersion", fmt.Errorf("want %q, got %s", APIVersion, orMissing(doc["apiVersion"])))
	}
	if err := decode(doc["kind"], &kind); err != nil || kind != TimelineKind {
		return nil, fail("kind", fmt.Errorf("want %q, got %s", TimelineKind, orMissing(doc["kind"])))
	}
	if m, ok := doc["metadata"]; ok {
		var meta struct {
			Name string `json:"name,omitempty"`
		}
		if err := decode(m, &meta); err != nil {
			return nil, fail("metadata", err)
		}
	}
	tl := &Timeline{}
	if tl.Duration, err = parseDuration(doc["duration"]); err != nil {
		return nil, fail("duration", err)
	}
	if tl.Duration <= 0 {
		return nil, fail("duration", errors.New("must be positive"))
	}
	var events []json.RawMessage
	if raw, ok := doc["events"]; ok && !isNull(raw) {
		if err := decode(raw, &events); err != nil {
			return nil, fail("events", errors.New("want a list of events"))
		}
	}
	if len(events) > MaxTimelineEvents {
		return nil, fail("events", fmt.Errorf("%d events, more than the %d a timeline may hold", len(events), MaxTimelineEvents))
	}
	for i, raw := range events {
		at := fmt.Sprintf("events[%d]", i)
		ev, field, err := parseEvent(raw, file, read)
		if err != nil {
			return nil, fail(joinField(at, field), err)
		}
		if ev.At > tl.Duration {
			return nil, fail(at+".at", fmt.Errorf("%v is after the end of the timeline (duration %v)", ev.At, tl.Duration))
		}
		ev.Source = file + ": " + at
		tl.Events = append(tl.Events, ev)
	}
	return tl, nil
}

func joinField(a, b string) string {
	if b == "" {
		return a
	}
	return a + "." + b
}

func orMissing(raw json.RawMessage) string {
	if raw == nil {
		return "none"
	}
	return string(raw)
}

// parseEvent reads one event; the field names where an error is, within the event.
func parseEvent(raw json.RawMessage, file string, read func(string) ([]byte, error)) (TimelineEvent, string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return TimelineEvent{}, "", errors.New("want an object with at and one action")
	}
	actions := []string{"scale", "deletePods", "addPods", "interrupt", "apply"}
	if err := knownFields(fields, append([]string{"at"}, actions...)...); err != nil {
		return TimelineEvent{}, "", err
	}
	var ev TimelineEvent
	var err error
	if ev.At, err = parseDuration(fields["at"]); err != nil {
		return TimelineEvent{}, "at", err
	}
	if ev.At < 0 {
		return TimelineEvent{}, "at", errors.New("must not be negative")
	}
	var given []string
	for _, a := range actions {
		if _, ok := fields[a]; ok {
			given = append(given, a)
		}
	}
	if len(given) != 1 {
		return TimelineEvent{}, "", fmt.Errorf("want exactly one of %s, got %d (%s)", strings.Join(actions, ", "), len(given), strings.Join(given, ", "))
	}
	action := given[0]
	body := fields[action]
	field, err := func() (string, error) {
		switch action {
		case "scale":
			ev.Scale = &Scale{}
			if err := decode(body, ev.Scale); err != nil {
				return decodeField(err), err
			}
			return checkScale(ev.Scale)
		case "deletePods", "addPods":
			sel := &PodSelection{}
			if err := decode(body, sel); err != nil {
				return decodeField(err), err
			}
			if action == "addPods" {
				ev.AddPods = sel
			} else {
				ev.DeletePods = sel
			}
			return checkSelection(sel, action == "addPods")
		case "interrupt":
			ev.Interrupt = &Interrupt{}
			if err := decode(body, ev.Interrupt); err != nil {
				return decodeField(err), err
			}
			return checkInterrupt(ev.Interrupt)
		default:
			var err error
			ev.Apply, err = parseApply(body, file, read)
			return "", err
		}
	}()
	if err != nil {
		return TimelineEvent{}, joinField(action, field), err
	}
	return ev, "", nil
}

// decode is a strict JSON decode: unknown fields and trailing data are errors.
func decode(raw json.RawMessage, into any) error {
	if raw == nil {
		return errors.New("missing")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(into); err != nil {
		return cleanJSONError(err)
	}
	if d.More() {
		return errors.New("trailing data")
	}
	return nil
}

// fieldError is a decoding error about one field.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.err.Error() }

// cleanJSONError turns encoding/json's errors into ones that name the field without Go's
// type names.
func cleanJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &fieldError{field: te.Field, err: fmt.Errorf("want %s, got %s", jsonKind(te.Type.Kind().String()), te.Value)}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", name)
	}
	return err
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"):
		return "an integer"
	case strings.HasPrefix(goKind, "float"):
		return "a number"
	case goKind == "string":
		return "a string"
	case goKind == "bool":
		return "a boolean"
	case goKind == "slice":
		return "a list"
	}
	return "an object"
}

// decodeField is the field a decode error names ("" when none).
func decodeField(err error) string {
	var fe *fieldError
	if errors.As(err, &fe) {
		return fe.field
	}
	return ""
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// knownFields refuses keys of an object that are not listed.
func knownFields(obj map[string]json.RawMessage, known ...string) error {
	var unknown []string
	for k := range obj {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("unknown field %q (known: %s)", unknown[0], strings.Join(known, ", "))
	}
	return nil
}

// parseDuration reads a Go duration string ("90s", "1h30m"); 0 may be a number.
func parseDuration(raw json.RawMessage) (time.Duration, error) {
	if raw == nil {
		return 0, errors.New("missing")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var n float64
		if json.Unmarshal(raw, &n) == nil && n == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("want a duration such as 90s or 1h30m, got %s", raw)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 90s or 1h30m, got %q", s)
	}
	return d, nil
}

func checkScale(s *Scale) (string, error) {
	switch {
	case s.Name == "":
		return "name", errors.New("missing")
	case s.Kind != "" && s.Kind != "Deployment" && s.Kind != "ReplicaSet" && s.Kind != "StatefulSet":
		return "kind", fmt.Errorf("want Deployment, ReplicaSet or StatefulSet, got %q", s.Kind)
	case s.Replicas < 0:
		return "replicas", errors.New("must not be negative")
	}
	return "", nil
}

func checkSelection(s *PodSelection, adding bool) (string, error) {
	switch {
	case (s.Owner == nil) == (s.Selector == nil):
		return "", errors.New("want exactly one of owner and selector")
	case s.Owner != nil && s.Owner.Kind == "":
		return "owner.kind", errors.New("missing")
	case s.Owner != nil && s.Owner.Name == "":
		return "owner.name", errors.New("missing")
	case s.Count != nil && *s.Count < 0:
		return "count", errors.New("must not be negative")
	case adding && s.Count == nil:
		return "count", errors.New("missing: how many pods to add")
	}
	if s.Selector != nil {
		if _, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
			return "selector", err
		}
	}
	return "", nil
}

func checkInterrupt(in *Interrupt) (string, error) {
	switch {
	case in.Fraction != nil && in.Count != nil:
		return "", errors.New("want at most one of fraction and count")
	case in.Fraction != nil && (math.IsNaN(*in.Fraction) || *in.Fraction <= 0 || *in.Fraction > 1):
		return "fraction", fmt.Errorf("want a fraction in (0, 1], got %v", *in.Fraction)
	case in.Count != nil && *in.Count <= 0:
		return "count", errors.New("must be positive")
	}
	return "", nil
}

// parseApply reads an apply's objects (inline, or the file it names) with package manifest.
func parseApply(body json.RawMessage, file string, read func(string) ([]byte, error)) (*Apply, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return nil, errors.New("want an object with objects or file")
	}
	if err := knownFields(fields, "objects", "file"); err != nil {
		return nil, err
	}
	objects, named := fields["objects"]
	name, hasFile := fields["file"]
	if named == hasFile {
		return nil, errors.New("want exactly one of objects and file")
	}
	var data []byte
	source := file + " (apply)"
	if hasFile {
		var rel string
		if err := decode(name, &rel); err != nil || rel == "" {
			return nil, errors.New("file: want a file name")
		}
		if read == nil {
			return nil, fmt.Errorf("file %q: files cannot be read here", rel)
		}
		full := rel
		if !path.IsAbs(rel) {
			full = path.Join(path.Dir(file), rel)
		}
		var err error
		if data, err = read(full); err != nil {
			return nil, fmt.Errorf("file %q: %w", rel, err)
		}
		source = full
	} else {
		var list []json.RawMessage
		if err := decode(objects, &list); err != nil {
			return nil, errors.New("objects: want a list of Kubernetes objects")
		}
		for _, o := range list {
			data = append(append(data, o...), '\n')
		}
	}
	set, err := manifest.Parse(data, source)
	if err != nil {
		return nil, err
	}
	if err := appliable(set); err != nil {
		return nil, err
	}
	return &Apply{Objects: set}, nil
}

// appliable refuses sets with objects an apply cannot replace, or none at all.
func appliable(set *manifest.Set) error {
	n := len(set.NodePools) + len(set.PodDisruptionBudgets)
	others := len(set.Pods) + len(set.Workloads) + len(set.Nodes) + len(set.NodeClaims) + len(set.DaemonSets) +
		len(set.PersistentVolumeClaims) + len(set.PersistentVolumes) + len(set.StorageClasses) + len(set.CSINodes) +
		len(set.Namespaces) + len(set.Leases) + len(set.NodeClasses) + len(set.Interruptions)
	for _, kind := range slices.Sorted(maps.Keys(set.Skipped)) {
		others += set.Skipped[kind]
	}
	switch {
	case others > 0:
		return errors.New("only NodePools and PodDisruptionBudgets can be applied during a simulation")
	case n == 0:
		return errors.New("no NodePool or PodDisruptionBudget to apply")
	}
	return nil
}
