package scheduling

import (
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// domainFilter is a quick, claim-independent pre-check for non-hostname topology groups: the
// domains each group admits at all. A NodeClaim already collapsed to another domain of the
// key is rejected without the full check.
type domainFilter struct {
	key     int // in topology.keys
	allowed []string
}

// filters builds the domain filters of p for this attempt.
func (t *topology) filters(p *podData, f *podForm, buf []domainFilter) []domainFilter {
	buf = buf[:0]
	add := func(g *topologyGroup) {
		if !g.hostname {
			buf = append(buf, domainFilter{key: t.keyIDs[g.key], allowed: t.admissible(g, p, f).domains})
		}
	}
	for _, g := range f.owned {
		add(g)
	}
	for _, g := range p.blockedBy {
		add(g)
	}
	return buf
}

// rejectedByFilters reports whether a NodeClaim whose single values per topology key are
// values is ruled out by the filters.
func rejectedByFilters(filters []domainFilter, values []string) bool {
	for _, df := range filters {
		if df.key >= len(values) {
			continue
		}
		v := values[df.key]
		if v == "" {
			continue
		}
		found := false
		for _, a := range df.allowed {
			if a == v {
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

// domainsRefuse reports whether the requirements of a NodeClaim (its own, which a pod's
// only narrow) hold a key of the filters to a set of values none of the filter's domains is
// in. Each rule's narrow then finds no domain (affinity, anti-affinity and spread keep only
// admissible domains the node's requirement has; a group's bootstrap admits all its
// domains), so the full check would refuse the claim: rejectedByFilters decides by single
// values alone and lets a claim open to several domains through.
func (t *topology) domainsRefuse(filters []domainFilter, reqs requirements.Requirements) bool {
	for _, df := range filters {
		r, ok := reqs[t.keys[df.key]]
		if ok && r.Operator() == requirements.In && !slices.ContainsFunc(df.allowed, r.Has) {
			return true
		}
	}
	return false
}

// domainsRefuse is topology.domainsRefuse of the attempt's filters for c (never without
// the indexes).
func (s *solver) domainsRefuse(c *claim) bool {
	return !s.opts.withoutIndexes && s.topo.domainsRefuse(s.filterBuf, c.reqs)
}

// singleValues are reqs' single values of the topology keys ("" where open), into buf.
func (t *topology) singleValues(reqs requirements.Requirements, buf []string) []string {
	buf = buf[:0]
	for _, k := range t.keys {
		v := ""
		if r, ok := reqs[k]; ok {
			v = singleValue(r)
		}
		buf = append(buf, v)
	}
	return buf
}
