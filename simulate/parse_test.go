package simulate_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
	"github.com/nodeplan/nodeplan/simulate"
)

const header = "apiVersion: nodeplan.io/v1alpha1\nkind: Timeline\n"

func TestParseTimeline(t *testing.T) {
	tl, err := simulate.ParseTimeline([]byte(header+`
metadata: {name: day}
duration: 24h
events:
- at: 0
  scale: {kind: Deployment, namespace: shop, name: web, replicas: 40}
- at: 8h30m
  deletePods: {namespace: shop, selector: {matchLabels: {app: batch}}, count: 3}
- at: 9h
  addPods: {owner: {kind: Deployment, name: web}, count: 2}
- at: 12h
  interrupt: {instanceType: m5.large, zone: us-east-1a, fraction: 0.5}
- at: 13h
  interrupt: {nodePool: default, count: 2}
- at: 20h
  apply:
    objects:
    - apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: default}
      spec:
        template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}, requirements: []}}
        disruption: {consolidateAfter: 5m}
- at: 21h
  apply: {file: nodepools.yaml}
`), "plans/day.yaml", func(name string) ([]byte, error) {
		if name != "plans/nodepools.yaml" {
			return nil, errors.New("no such file")
		}
		return []byte(`{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
			"spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}}`), nil
	})
	require.NoError(t, err)
	assert.Equal(t, 24*time.Hour, tl.Duration)
	var actions []string
	for _, ev := range tl.Events {
		actions = append(actions, ev.Action())
	}
	assert.Equal(t, []string{"scale", "deletePods", "addPods", "interrupt", "interrupt", "apply", "apply"}, actions)
	assert.Equal(t, 8*time.Hour+30*time.Minute, tl.Events[1].At)
	assert.Equal(t, "plans/day.yaml: events[1]", tl.Events[1].Source)
	assert.Equal(t, int32(40), tl.Events[0].Scale.Replicas)
	assert.Equal(t, int32(3), *tl.Events[1].DeletePods.Count)
	assert.Equal(t, 0.5, *tl.Events[3].Interrupt.Fraction)
	require.Len(t, tl.Events[5].Apply.Objects.NodePools, 1)
	assert.Equal(t, 5*time.Minute, *tl.Events[5].Apply.Objects.NodePools[0].Spec.Disruption.ConsolidateAfter.Duration)
	require.Len(t, tl.Events[6].Apply.Objects.PodDisruptionBudgets, 1)
}

// Every malformed timeline is a *TimelineError naming the file and the field.
func TestParseTimelineErrors(t *testing.T) {
	events := func(body string) string { return header + "duration: 1h\nevents:\n" + body }
	for _, tc := range []struct {
		name, doc, field string
	}{
		{"not YAML", "duration: [1h", ""},
		{"a list", "- 1", ""},
		{"wrong apiVersion", "apiVersion: v1\nkind: Timeline\nduration: 1h", "apiVersion"},
		{"wrong kind", "apiVersion: nodeplan.io/v1alpha1\nkind: Day\nduration: 1h", "kind"},
		{"unknown top-level field", header + "duration: 1h\nstart: now", ""},
		{"duplicated field", header + "duration: 1h\nduration: 2h", ""},
		{"missing duration", header, "duration"},
		{"duration not a duration", header + "duration: a day", "duration"},
		{"duration zero", header + "duration: 0s", "duration"},
		{"events not a list", header + "duration: 1h\nevents: {at: 1m}", "events"},
		{"event not an object", events("- 3"), "events[0]"},
		{"event without action", events("- at: 1m"), "events[0]"},
		{"event with two actions", events("- {at: 1m, scale: {name: a, replicas: 1}, interrupt: {}}"), "events[0]"},
		{"unknown event field", events("- {at: 1m, scal: {name: a}}"), "events[0]"},
		{"missing at", events("- {scale: {name: a, replicas: 1}}"), "events[0].at"},
		{"negative at", events("- {at: -1m, scale: {name: a, replicas: 1}}"), "events[0].at"},
		{"at after the end", events("- {at: 2h, scale: {name: a, replicas: 1}}"), "events[0].at"},
		{"scale without name", events("- {at: 1m, scale: {replicas: 1}}"), "events[0].scale.name"},
		{"scale of a kind", events("- {at: 1m, scale: {kind: DaemonSet, name: a, replicas: 1}}"), "events[0].scale.kind"},
		{"negative replicas", events("- {at: 1m, scale: {name: a, replicas: -1}}"), "events[0].scale.replicas"},
		{"replicas a string", events("- {at: 1m, scale: {name: a, replicas: many}}"), "events[0].scale.replicas"},
		{"unknown scale field", events("- {at: 1m, scale: {name: a, replica: 1}}"), "events[0].scale"},
		{"selection with both", events("- {at: 1m, deletePods: {owner: {kind: Deployment, name: a}, selector: {matchLabels: {a: b}}}}"), "events[0].deletePods"},
		{"selection with neither", events("- {at: 1m, deletePods: {count: 1}}"), "events[0].deletePods"},
		{"owner without kind", events("- {at: 1m, deletePods: {owner: {name: a}}}"), "events[0].deletePods.owner.kind"},
		{"bad selector", events("- {at: 1m, deletePods: {selector: {matchExpressions: [{key: a, operator: Near}]}}}"), "events[0].deletePods.selector"},
		{"addPods without count", events("- {at: 1m, addPods: {owner: {kind: Deployment, name: a}}}"), "events[0].addPods.count"},
		{"negative count", events("- {at: 1m, deletePods: {selector: {}, count: -1}}"), "events[0].deletePods.count"},
		{"fraction and count", events("- {at: 1m, interrupt: {fraction: 0.5, count: 1}}"), "events[0].interrupt"},
		{"fraction out of range", events("- {at: 1m, interrupt: {fraction: 1.5}}"), "events[0].interrupt.fraction"},
		{"zero count", events("- {at: 1m, interrupt: {count: 0}}"), "events[0].interrupt.count"},
		{"unknown interrupt field", events("- {at: 1m, interrupt: {capacityType: on-demand}}"), "events[0].interrupt"},
		{"apply with both", events("- {at: 1m, apply: {file: a.yaml, objects: []}}"), "events[0].apply"},
		{"apply of a file without a reader", events("- {at: 1m, apply: {file: a.yaml}}"), "events[0].apply"},
		{"apply of a Deployment", events("- at: 1m\n  apply: {objects: [{apiVersion: apps/v1, kind: Deployment, metadata: {name: a}, spec: {selector: {}, template: {}}}]}"), "events[0].apply"},
		{"apply of a skipped kind", events("- at: 1m\n  apply: {objects: [{apiVersion: v1, kind: Service, metadata: {name: a}}]}"), "events[0].apply"},
		{"apply of nothing", events("- {at: 1m, apply: {objects: []}}"), "events[0].apply"},
		{"apply of a bad NodePool", events("- at: 1m\n  apply: {objects: [{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: a}, spec: {weight: heavy}}]}"), "events[0].apply"},
		{"second event", events("- {at: 1m, scale: {name: a, replicas: 1}}\n- {at: 2m, scale: {name: a, replicas: x}}"), "events[1].scale.replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := simulate.ParseTimeline([]byte(tc.doc), "day.yaml", nil)
			var te *simulate.TimelineError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "day.yaml", te.File)
			assert.Equal(t, tc.field, te.Field)
		})
	}
}

// FuzzParseTimeline: whatever the bytes, ParseTimeline returns a timeline whose every event
// has one action within the duration, or a *TimelineError naming the file; it never panics.
func FuzzParseTimeline(f *testing.F) {
	for _, seed := range []string{
		header + "duration: 24h\nevents:\n- {at: 1h, scale: {name: web, replicas: 3}}\n- {at: 2h, interrupt: {fraction: 0.5}}",
		header + "duration: 2h\nevents:\n- {at: 10m, deletePods: {selector: {matchLabels: {app: a}}, count: 2}}",
		header + "duration: 2h\nevents:\n- {at: 10m, addPods: {owner: {kind: StatefulSet, name: db}, count: 2}}",
		header + "duration: 1h\nevents:\n- at: 5m\n  apply: {objects: [{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: a}, spec: {template: {spec: {nodeClassRef: {group: g, kind: K, name: n}, requirements: []}}}}]}",
		`{"apiVersion": "nodeplan.io/v1alpha1", "kind": "Timeline", "duration": "90s", "events": []}`,
		"",
		"null",
	} {
		f.Add([]byte(seed))
	}
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := simulate.ParseTimeline(data, "day.yaml", nil)
		if err != nil {
			var te *simulate.TimelineError
			if !errors.As(err, &te) || te.File != "day.yaml" {
				t.Fatalf("error %v is not a TimelineError of day.yaml", err)
			}
			return
		}
		if tl.Duration <= 0 {
			t.Fatalf("duration %v", tl.Duration)
		}
		for i, ev := range tl.Events {
			if ev.Action() == "" || ev.At < 0 || ev.At > tl.Duration {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
	})
}
