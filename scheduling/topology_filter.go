package scheduling

import (
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
