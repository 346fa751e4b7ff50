package main

import (
	"fmt"
	"io"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/manifest"
)

// Where the time disrupt judges at came from (the JSON contract's now.source).
const (
	nowFromFlag             = "flag"
	nowFromNodeHeartbeat    = "nodeHeartbeat"
	nowFromLeaseRenewal     = "leaseRenewal"
	nowFromPodStart         = "podStart"
	nowFromLastPodEventTime = "lastPodEventTime"
	nowFromCreation         = "creationTimestamp"
	nowFromNothing          = "none"
)

// tracksDumpTime are the sources that move with the cluster's clock: a dump taken now has one
// within minutes of now. Creation times may be days old.
var tracksDumpTime = map[string]bool{
	nowFromFlag: true, nowFromNodeHeartbeat: true, nowFromLeaseRenewal: true, nowFromPodStart: true,
}

// judgedAt is the time disrupt decides at and where it came from.
type judgedAt struct {
	Time time.Time `json:"time"`
	// Source is one of the nowFrom constants.
	Source string `json:"source"`
	// Object and Field name the timestamp, for a time taken from the input.
	Object string `json:"object,omitempty"`
	Field  string `json:"field,omitempty"`
	// TracksDumpTime is false when the input holds no timestamp that tracks when it was
	// dumped, so the time may be long before the dump.
	TracksDumpTime bool `json:"tracksDumpTime"`
	// Warning says what to do about an untracked time.
	Warning string `json:"warning,omitempty"`
}

// timestamp is one candidate for the default time.
type timestamp struct {
	at                    time.Time
	source, object, field string
}

// nowFromInput is the default --now: the newest timestamp of the input (on a tie the one that
// tracks the dump time, then by object), never the wall clock; the Unix epoch when the input
// has none.
func nowFromInput(set *manifest.Set) judgedAt {
	var all []timestamp
	see := func(t metav1.Time, source, object, field string) {
		if !t.IsZero() {
			all = append(all, timestamp{t.UTC(), source, object, field})
		}
	}
	for _, n := range set.Nodes {
		obj := fmt.Sprintf("Node %q", n.Name)
		see(n.CreationTimestamp, nowFromCreation, obj, "metadata.creationTimestamp")
		for _, c := range n.Status.Conditions {
			see(c.LastHeartbeatTime, nowFromNodeHeartbeat, obj, fmt.Sprintf("status.conditions[%s].lastHeartbeatTime", c.Type))
		}
	}
	for _, l := range set.Leases {
		if l.Spec.RenewTime != nil {
			see(metav1.NewTime(l.Spec.RenewTime.Time), nowFromLeaseRenewal, fmt.Sprintf("Lease %q", l.Namespace+"/"+l.Name), "spec.renewTime")
		}
	}
	for _, nc := range set.NodeClaims {
		obj := fmt.Sprintf("NodeClaim %q", nc.Name)
		see(nc.CreationTimestamp, nowFromCreation, obj, "metadata.creationTimestamp")
		see(nc.Status.LastPodEventTime, nowFromLastPodEventTime, obj, "status.lastPodEventTime")
	}
	for _, p := range set.Pods {
		obj := fmt.Sprintf("Pod %q", p.Namespace+"/"+p.Name)
		see(p.CreationTimestamp, nowFromCreation, obj, "metadata.creationTimestamp")
		if p.Status.StartTime != nil {
			see(*p.Status.StartTime, nowFromPodStart, obj, "status.startTime")
		}
	}
	if len(all) == 0 {
		return judgedAt{Time: time.Unix(0, 0).UTC(), Source: nowFromNothing,
			Warning: "the input holds no timestamp: judged at the Unix epoch; pass --now"}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if !a.at.Equal(b.at) {
			return a.at.After(b.at)
		}
		if tracksDumpTime[a.source] != tracksDumpTime[b.source] {
			return tracksDumpTime[a.source]
		}
		if a.object != b.object {
			return a.object < b.object
		}
		return a.field < b.field
	})
	newest := all[0]
	j := judgedAt{Time: newest.at, Source: newest.source, Object: newest.object, Field: newest.field}
	for _, t := range all {
		j.TracksDumpTime = j.TracksDumpTime || tracksDumpTime[t.source]
	}
	if !j.TracksDumpTime {
		j.Warning = "no timestamp in the input tracks when it was dumped (Node heartbeats, Lease renewals, pod start times): " +
			"judged at the newest " + newest.field + ", which may be long before the dump; pass --now"
	}
	return j
}

// String says in words what time was judged at, for the table and YAML outputs.
func (j judgedAt) String() string {
	at := j.Time.Format(time.RFC3339)
	switch j.Source {
	case nowFromFlag:
		return "judged at " + at + " (--now)"
	case nowFromNothing:
		return "judged at " + at + " (no timestamp in the input)"
	}
	return fmt.Sprintf("judged at %s, the newest timestamp of the input (%s %s)", at, j.Object, j.Field)
}

// parseNowFlag reads --now, an RFC3339 time (source flag); empty, it is the zero judgedAt,
// for orInput to fill in once the input is read.
func parseNowFlag(value string) (judgedAt, error) {
	if value == "" {
		return judgedAt{}, nil
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return judgedAt{}, fmt.Errorf("--now %q: want an RFC3339 time such as 2026-01-01T00:00:00Z", value)
	}
	return judgedAt{Time: t.UTC(), Source: nowFromFlag, TracksDumpTime: true}, nil
}

// orInput is j, or without --now the input's newest timestamp; its warning goes to stderr.
func (j judgedAt) orInput(set *manifest.Set, stderr io.Writer) judgedAt {
	if j.Source == "" {
		j = nowFromInput(set)
	}
	if j.Warning != "" && stderr != nil {
		fmt.Fprintln(stderr, "nodeplan: warning:", j.Warning)
	}
	return j
}
