package main

import "slices"

// shrink removes documents, replicas and instance types from a diverging input while it still
// diverges in the same class, and returns the smallest input found with its result.
func (cfg *config) shrink(in *input, r *caseResult) (*input, *caseResult) {
	cur, curRes := in, r
	same := func(c *input) (*caseResult, bool) {
		res := cfg.evaluate(c)
		return res, res.Status == r.Status && res.Class == r.Class
	}
	try := func(c *input) bool {
		if res, ok := same(c); ok {
			cur, curRes = c, res
			return true
		}
		return false
	}
	for range 2 {
		progress := false
		for i := len(cur.Docs) - 1; i >= 0; i-- {
			if i >= len(cur.Docs) || cur.Docs[i]["kind"] == "StorageClass" {
				// Without its StorageClass a claim's pod meets a deliberate difference
				// (README: nodeplan plans it, Karpenter ignores it), a class of its own.
				continue
			}
			c := cur.clone()
			c.Docs = slices.Delete(c.Docs, i, i+1)
			if try(c) {
				progress = true
			}
		}
		for i := range cur.Docs {
			for {
				spec, ok := cur.Docs[i]["spec"].(map[string]any)
				if !ok {
					break
				}
				n, ok := spec["replicas"].(int)
				if !ok || n <= 1 {
					break
				}
				c := cur.clone()
				c.Docs[i]["spec"].(map[string]any)["replicas"] = n - 1
				if !try(c) {
					break
				}
				progress = true
			}
		}
		types := cur.Catalog["instanceTypes"].([]any)
		for i := len(types) - 1; i >= 0; i-- {
			types = cur.Catalog["instanceTypes"].([]any)
			if i >= len(types) || len(types) == 1 {
				continue
			}
			c := cur.clone()
			c.Catalog["instanceTypes"] = slices.Delete(slices.Clone(types), i, i+1)
			if try(c) {
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	// Then drop optional fields (constraints, taints, limits, extra list entries) of the
	// NodePools and workloads that are left, one at a time.
	for i := range cur.Docs {
		kind, _ := cur.Docs[i]["kind"].(string)
		if !shrinkable[kind] {
			continue
		}
		for _, path := range optionalPaths(cur.Docs[i]["spec"], []any{"spec"}) {
			c := cur.clone()
			if deletePath(c.Docs[i], path) {
				try(c)
			}
		}
	}
	return cur, curRes
}

// shrinkable are the kinds whose optional fields shrink tries to drop.
var shrinkable = map[string]bool{"NodePool": true, "Deployment": true, "StatefulSet": true, "Pod": true, "DaemonSet": true}

// keep are fields a valid object needs.
var keep = map[string]bool{"containers": true, "selector": true, "template": true, "metadata": true, "nodeClassRef": true,
	"name": true, "namespace": true, "labels": true, "resources": true, "requests": true, "image": true, "spec": true,
	"nodeName": true, "replicas": true, "serviceName": true, "volumeClaimTemplates": true, "topologyKey": true,
	"labelSelector": true, "whenUnsatisfiable": true, "maxSkew": true, "key": true, "operator": true, "values": true,
	"matchLabels": true, "matchExpressions": true, "nodeSelectorTerms": true, "podAffinityTerm": true, "weight": true,
	"preference": true, "effect": true, "value": true, "app": true}

// optionalPaths lists, deepest first, the map keys not in keep and the entries of lists with
// more than one element under v.
func optionalPaths(v any, at []any) [][]any {
	var out [][]any
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := append(slices.Clone(at), k)
			out = append(out, optionalPaths(x[k], p)...)
			if !keep[k] {
				out = append(out, p)
			}
		}
	case []any:
		for i := len(x) - 1; i >= 0; i-- {
			p := append(slices.Clone(at), i)
			out = append(out, optionalPaths(x[i], p)...)
			if len(x) > 1 {
				out = append(out, p)
			}
		}
	}
	return out
}

// deletePath removes the map key or list entry at path; false when the path is gone (a list
// keeps its last entry).
func deletePath(doc map[string]any, path []any) bool {
	n := len(path)
	switch x := at(doc, path[:n-1]).(type) {
	case map[string]any:
		k := path[n-1].(string)
		if _, ok := x[k]; !ok {
			return false
		}
		delete(x, k)
		return true
	case []any:
		i := path[n-1].(int)
		if i >= len(x) || len(x) < 2 {
			return false
		}
		shorter := slices.Delete(slices.Clone(x), i, i+1)
		switch holder := at(doc, path[:n-2]).(type) {
		case map[string]any:
			holder[path[n-2].(string)] = shorter
		case []any:
			holder[path[n-2].(int)] = shorter
		}
		return true
	}
	return false
}

// at is the value at path in v, or nil.
func at(v any, path []any) any {
	for _, step := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[step.(string)]
		case []any:
			i := step.(int)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func (in *input) clone() *input {
	c := *in
	c.Docs = make([]map[string]any, len(in.Docs))
	for i, d := range in.Docs {
		c.Docs[i] = deepCopy(d)
	}
	c.Catalog = deepCopy(in.Catalog)
	return &c
}
