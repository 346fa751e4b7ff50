package requirements

import (
	"fmt"
	"strings"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Tiers of typo-hint matches, best first.
const (
	hintSameName  = iota // same name after the prefix: "zone" vs "topology.kubernetes.io/zone"
	hintEdit             // edit distance at most len/8: "topology.kubernetes.io/regio"
	hintSubstring        // the key is part of the candidate: "instance" in "node.kubernetes.io/instance-type"
	hintNone
)

// maxHintLen bounds the keys compared by edit distance (label keys are at most 317 bytes).
const maxHintLen = 320

// typoHint returns ` (typo of "<candidate>"?)` for the candidate key closest to key among
// v1.WellKnownLabels, allowUndefined and rs's keys, or "" when none is close. The choice is
// deterministic: best tier, then smallest edit distance, then smallest key.
//
// A key that is itself a well-known or allowed-undefined key gets no hint.
func typoHint(key string, rs Requirements, allowUndefined KeySet) string {
	if v1.WellKnownLabels[key] || allowUndefined[key] {
		return ""
	}
	best, bestTier, bestDist := "", hintNone, 0
	consider := func(c string) {
		if c == key || c == "" {
			return
		}
		tier, dist := hintMatch(key, c)
		if tier == hintNone {
			return
		}
		if tier < bestTier || (tier == bestTier && (dist < bestDist || (dist == bestDist && c < best))) {
			best, bestTier, bestDist = c, tier, dist
		}
	}
	for c := range v1.WellKnownLabels {
		consider(c)
	}
	for c := range allowUndefined {
		consider(c)
	}
	for c := range rs {
		consider(c)
	}
	if bestTier == hintNone {
		return ""
	}
	return fmt.Sprintf(" (typo of %q?)", best)
}

// hintMatch classifies how close key is to candidate c.
func hintMatch(key, c string) (tier, dist int) {
	dist = len(key) + len(c)
	if len(key) <= maxHintLen && len(c) <= maxHintLen {
		dist = editDistance(key, c)
	}
	switch {
	case labelName(key) != "" && labelName(key) == labelName(c):
		return hintSameName, dist
	case dist <= len(c)/8:
		return hintEdit, dist
	case len(key) >= 3 && strings.Contains(c, key):
		return hintSubstring, dist
	}
	return hintNone, dist
}

// labelName is the part of a label key after its prefix ("zone" of "topology.kubernetes.io/zone").
func labelName(key string) string {
	return key[strings.LastIndexByte(key, '/')+1:]
}

// editDistance is the optimal-string-alignment distance between a and b (bytes): insertions,
// deletions, substitutions and transpositions of adjacent bytes each cost 1.
func editDistance(a, b string) int {
	pp := make([]int, len(b)+1)   // row i-2
	prev := make([]int, len(b)+1) // row i-1
	cur := make([]int, len(b)+1)  // row i
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, pp[j-2]+1)
			}
			cur[j] = d
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}
