package scheduling

// The hostname key's fast path: every candidate node is its own domain, so groups on it count
// per dense host id in a slice, and a pod's hostname constraints are checked per candidate
// before anything else.

// hostIDs number hostnames densely: a Cache's are shared by its Solves (nodeStore), so an
// existing node keeps its id.
type hostIDs map[string]int32

func (h hostIDs) id(name string) int32 {
	if id, ok := h[name]; ok {
		return id
	}
	id := int32(len(h))
	h[name] = id
	return id
}

// hostID is the id of a hostname.
func (t *topology) hostID(name string) int32 { return t.hosts.id(name) }

// claimHost is hostID for a NodeClaim's placeholder hostname.
func (t *topology) claimHost(name string) int32 {
	id := t.hostID(name)
	t.claimHosts[id] = true
	return id
}

// countHost counts one pod of g on the host named name.
func (t *topology) countHost(g *topologyGroup, name string) {
	h := t.hostID(name)
	for int(h) >= len(g.hostCounts) {
		g.hostCounts = append(g.hostCounts, 0)
	}
	g.hostCounts[h]++
	if g.hostCounts[h] == 1 && t.claimHosts[h] {
		g.occupiedClaims++
	}
}

func (g *topologyGroup) hostCount(host int32) int32 {
	if int(host) < len(g.hostCounts) {
		return g.hostCounts[host]
	}
	return 0
}

// hostAllows reports whether a pod (self: selected by g) may join host under g.
func (g *topologyGroup) hostAllows(self bool, host int32) bool {
	return g.rule.allowsHost(g, self, g.hostCount(host))
}

// hostBlocked is a fast pre-check: the hostname group of p that rules host out, or nil
// (capCarriers: topology.capCarriers).
func (p *podData) hostBlocked(f *podForm, host int32, capCarriers bool) *topologyGroup {
	for _, g := range f.owned {
		if g.hostname && !g.hostAllows(p.selfSelects(g), host) {
			return g
		}
	}
	for _, g := range p.blockedBy {
		if g.hostname && g.hostCount(host) > 0 {
			return g
		}
	}
	if capCarriers {
		return p.carrierCapped(f, host)
	}
	return nil
}

// claimsExhausted reports whether every open NodeClaim already holds a pod that p's hostname
// anti-affinity (or an inverse anti-affinity blocking p) forbids it to join.
func (p *podData) claimsExhausted(f *podForm, claims int) bool {
	for _, g := range f.owned {
		if g.hostname && g.hostFloor == 0 && g.rule.exclusiveHost(p.selfSelects(g)) && g.occupiedClaims >= claims {
			return true
		}
	}
	for _, g := range p.blockedBy {
		if g.hostname && g.occupiedClaims >= claims {
			return true
		}
	}
	return false
}
