package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// `plan -o yaml --launched` prints the cluster once the plan is carried out: each planned
// NodeClaim as the cloud launches the plan's choice (scheduling.Launched) — named as plan
// names it, registered and initialized at the launch time, with a providerID of its own
// (nodeplan:///<zone>/<name>) — and its Node (cluster.NodeFor), Ready and initialized. The
// pods stay in the input's files: given again with this output, they are planned onto these
// nodes (Karpenter nominates them there); left out, the nodes are empty (the seed tutorial's
// "delete the pods").

// checkLaunched refuses --launched and --now where they mean nothing.
func (p *planFlags) checkLaunched() error {
	switch {
	case p.launched && p.output != "yaml":
		return errors.New("--launched prints YAML: give -o yaml")
	case p.now != "" && !p.launched:
		return errors.New("--now is the launch time of --launched: give --launched -o yaml")
	}
	_, err := parseNowFlag(p.now)
	return err
}

// launchTime is when --launched's nodes launched: --now, else the input's newest timestamp.
func (p *planFlags) launchTime(set *manifest.Set) time.Time {
	at, _ := parseNowFlag(p.now) // checked by checkLaunched
	return at.orInput(set, p.stderr).Time
}

// writeLaunchedYAML prints every planned NodeClaim as launched at, and its Node.
func writeLaunchedYAML(w io.Writer, res *scheduling.Result, set *manifest.Set, at time.Time) error {
	pools := map[string]*v1.NodePool{}
	for _, np := range set.NodePools {
		pools[np.Name] = np
	}
	fmt.Fprintf(w, "# nodeplan plan --launched: %d NodeClaims launched at %s, registered and initialized, with their Nodes\n", len(res.NewNodeClaims), rfc3339(at))
	for i, name := range planClaimNames(res) {
		c := res.NewNodeClaims[i]
		nc := scheduling.Launched(c, scheduling.NodeClaimFor(c, name, pools[c.NodePool]))
		nc.CreationTimestamp = metav1.NewTime(at)
		nc.Status.NodeName = name
		nc.Status.ProviderID = fmt.Sprintf("nodeplan:///%s/%s", c.Offering.Zone(), name)
		for _, typ := range []string{v1.ConditionTypeRegistered, v1.ConditionTypeInitialized} {
			nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: typ, LastTransitionTime: metav1.NewTime(at)})
		}
		for j := range nc.Status.Conditions {
			if nc.Status.Conditions[j].LastTransitionTime.IsZero() {
				nc.Status.Conditions[j].LastTransitionTime = metav1.NewTime(at)
			}
		}
		for _, obj := range []any{nc, cluster.NodeFor(nc, at, true)} {
			b, err := yaml.Marshal(obj)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "---\n%s", b)
		}
	}
	return nil
}
