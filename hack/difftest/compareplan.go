package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

type planOutput struct {
	NodeClaims []struct {
		NodePool     string            `json:"nodePool"`
		InstanceType string            `json:"instanceType"`
		Zone         string            `json:"zone"`
		CapacityType string            `json:"capacityType"`
		PricePerHour float64           `json:"pricePerHour"`
		Labels       map[string]string `json:"labels"`
		Taints       []struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Effect string `json:"effect"`
		} `json:"taints"`
		Pods []string `json:"pods"`
	} `json:"nodeClaims"`
	ExistingNodes []struct {
		Name string   `json:"name"`
		Pods []string `json:"pods"`
	} `json:"existingNodes"`
	PodErrors []struct {
		Pod    string `json:"pod"`
		Reason string `json:"reason"`
	} `json:"podErrors"`
	PricePerHour float64 `json:"pricePerHour"`
}

// planSummary is what the comparison looks at.
type planSummary struct {
	Placed   map[string]bool
	Existing map[string]int // pods placed per existing node (in-flight claims: "inflight")
	Claims   int
	Price    float64
	ByPool   map[string]int // claims per NodePool
}

func summarizePlan(o *planOutput, nodeNames map[string]bool) planSummary {
	s := planSummary{Placed: map[string]bool{}, Existing: map[string]int{}, ByPool: map[string]int{}, Claims: len(o.NodeClaims)}
	for _, c := range o.NodeClaims {
		s.Price += c.PricePerHour
		s.ByPool[c.NodePool]++
		for _, p := range c.Pods {
			s.Placed[p] = true
		}
	}
	for _, n := range o.ExistingNodes {
		name := n.Name
		if !nodeNames[name] {
			name = "inflight"
		}
		s.Existing[name] += len(n.Pods)
		for _, p := range n.Pods {
			s.Placed[p] = true
		}
	}
	return s
}

func priceClose(a, b float64) bool { return math.Abs(a-b) <= math.Max(0.002, 0.005*math.Max(a, b)) }

type verdict struct {
	Match      bool
	Equivalent bool // not the same, but as good: same pods placed at the same price
	// Fewer: nodeplan places fewer pods; Dearer: it costs more without placing more pods;
	// Invalid: it breaks a rule Karpenter's plan keeps; KarpenterBreaks: Karpenter's plan
	// breaks a rule nodeplan's keeps (then Fewer and Dearer are not held against nodeplan).
	Fewer, Dearer, Invalid, KarpenterBreaks bool
	Class                                   string
	Details                                 []string
	score                                   int // lower is closer
}

// comparePlan compares nodeplan's summary with one oracle run's.
func comparePlan(np, or planSummary, npViol, orViol []violation) verdict {
	var v verdict
	extra, missing := setDiff(np.Placed, or.Placed), setDiff(or.Placed, np.Placed)
	newViol := violationKinds(npViol, orViol)
	switch {
	case len(newViol) > 0:
		v.Class = "invalid:" + strings.Join(newViol, ",")
		v.score += 1000
		for _, x := range npViol {
			if slices.Contains(newViol, x.Kind) {
				v.Details = append(v.Details, "violation: "+x.String())
			}
		}
	}
	if len(extra) > 0 || len(missing) > 0 {
		c := "places-other-pods"
		if len(np.Placed) < len(or.Placed) {
			c = "places-fewer"
		} else if len(np.Placed) > len(or.Placed) {
			c = "places-more"
		}
		if v.Class == "" {
			v.Class = c
		}
		v.score += 100 * (len(extra) + len(missing))
		v.Details = append(v.Details, fmt.Sprintf("placed: nodeplan %d, karpenter %d; only nodeplan: %s; only karpenter: %s",
			len(np.Placed), len(or.Placed), short(extra), short(missing)))
	}
	samePrice := priceClose(np.Price, or.Price)
	if !samePrice {
		c := "pricier"
		if np.Price < or.Price {
			c = "cheaper"
		}
		if v.Class == "" {
			v.Class = c
		}
		v.score += 10
		v.Details = append(v.Details, fmt.Sprintf("price: nodeplan %.4f, karpenter %.4f", np.Price, or.Price))
	}
	if np.Claims != or.Claims {
		if v.Class == "" {
			v.Class = "claims-count"
		}
		v.score += 5
		v.Details = append(v.Details, fmt.Sprintf("claims: nodeplan %d %v, karpenter %d %v", np.Claims, np.ByPool, or.Claims, or.ByPool))
	}
	if !maps.Equal(np.Existing, or.Existing) {
		if v.Class == "" {
			v.Class = "existing-node-use"
		}
		v.score += 3
		v.Details = append(v.Details, fmt.Sprintf("pods on existing nodes: nodeplan %v, karpenter %v", np.Existing, or.Existing))
	}
	v.Invalid = len(newViol) > 0
	v.Fewer = len(np.Placed) < len(or.Placed)
	v.Dearer = !samePrice && np.Price > or.Price && len(np.Placed) <= len(or.Placed)
	if only := violationKinds(orViol, npViol); len(only) > 0 && v.Class != "" {
		v.KarpenterBreaks = true
		// Karpenter's own plan breaks a constraint nodeplan keeps: a deliberate difference
		// when nodeplan is documented to do better, a checker approximation otherwise.
		v.Class += " [karpenter breaks " + strings.Join(only, ",") + "]"
		for _, x := range orViol {
			if slices.Contains(only, x.Kind) {
				v.Details = append(v.Details, "karpenter violation: "+x.String())
				break
			}
		}
	}
	if v.Class == "" {
		v.Match = true
	} else if len(newViol) == 0 && len(extra) == 0 && len(missing) == 0 && samePrice {
		v.Equivalent = true
	}
	return v
}

func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func short(xs []string) string {
	if len(xs) > 8 {
		return fmt.Sprintf("%v …(%d)", xs[:8], len(xs))
	}
	return fmt.Sprint(xs)
}

func parsePlan(b []byte) (*planOutput, error) {
	var o planOutput
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	return &o, nil
}
