package scheduling

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// universe records where topology domains come from.
type universe struct {
	// templates maps key -> domain -> the NodePools that can launch a node in it.
	templates map[string]map[string][]*template
	nodes     []universeNode
}

type universeNode struct {
	labels map[string]string
	reqs   requirements.Requirements
	taints []corev1.Taint
}

// domains are the domains a group starts with: those NodePools can produce (for a spread
// group honouring taints, only NodePools whose taints its pods tolerate), and the labels of
// existing nodes (for a spread group, only nodes passing its node filter).
func (u *universe) domains(g *topologyGroup, wellKnown requirements.KeySet) []string {
	seen := map[string]bool{}
	spread, _ := g.rule.(*spreadRule)
	for d, from := range u.templates[g.key] {
		for _, t := range from {
			if spread == nil || !spread.honorTaints || tolerates(spread.filterTolerations, schedulingTaints(t.taints)) {
				seen[d] = true
				break
			}
		}
	}
	for _, n := range u.nodes {
		v, ok := n.labels[g.key]
		if !ok || seen[v] {
			continue
		}
		if g.kind == groupSpread && !g.passesFilter(n.reqs, schedulingTaints(n.taints), nil) {
			continue
		}
		seen[v] = true
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// schedulingTaints drops PreferNoSchedule taints, which never keep a pod off a node.
func schedulingTaints(taints []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}
