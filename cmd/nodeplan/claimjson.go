package main

import (
	"bytes"
	"encoding/json"

	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// claimJSON writes plan -o json's nodeClaims entries: each is what encoding/json writes for
// claimOutputOf's claimOutput, byte for byte (TestClaimJSONAsEncoder), but its two long lists
// — the instance-type options and the requirements, the same for every claim with the same
// options — are encoded once per distinct list and copied. At 20,000 pods 4,000 claims
// listed 13 distinct option sets twice each: 97 % of a 47 MB answer, and encoding them claim
// by claim was most of the output's CPU and 50 MB of garbage.
type claimJSON struct {
	sets    *optionSets
	options map[optionsKey]*optionsJSON
	reqs    map[requirementKey][]byte
	// base encodes a claim without its lists; out is the entry, reused claim after claim.
	base    bytes.Buffer
	baseEnc *json.Encoder
	out     []byte
}

// optionsKey is an options slice by identity: its first element's address and its length
// (a Result's NodeClaims with the same options share one slice).
type optionsKey struct {
	first **cloudprovider.InstanceType
	n     int
}

// optionsJSON are an options slice's names, their set (--option-sets; -1 without) and
// their JSON array.
type optionsJSON struct {
	names []string
	set   int
	json  []byte
}

// requirementKey is a requirement and the option set of the claim it is rendered for.
type requirementKey struct {
	r   *requirements.Requirement
	set int
}

func newClaimJSON(sets *optionSets) *claimJSON {
	w := &claimJSON{sets: sets, options: map[optionsKey]*optionsJSON{}, reqs: map[requirementKey][]byte{}}
	w.baseEnc = json.NewEncoder(&w.base)
	return w
}

// optionsOf is c's options as names, set and JSON, computed once per options slice.
func (w *claimJSON) optionsOf(c *scheduling.NodeClaim) (*optionsJSON, error) {
	var key optionsKey
	if len(c.InstanceTypeOptions) > 0 {
		key = optionsKey{&c.InstanceTypeOptions[0], len(c.InstanceTypeOptions)}
		if o, ok := w.options[key]; ok {
			return o, nil
		}
	}
	o := &optionsJSON{names: optionNames(c), set: -1}
	if w.sets != nil {
		o.set = w.sets.of(o.names)
	}
	var err error
	if o.json, err = json.Marshal(o.names); err != nil {
		return nil, err
	}
	if key.first != nil {
		w.options[key] = o
	}
	return o, nil
}

// requirementJSON is r's requirementsOutput entries, comma-separated, computed once per
// requirement and option set (requirements are immutable).
func (w *claimJSON) requirementJSON(r *requirements.Requirement, set int) ([]byte, error) {
	key := requirementKey{r, set}
	if b, ok := w.reqs[key]; ok {
		return b, nil
	}
	var b []byte
	for i, e := range requirementOutputs(r, w.sets, set) {
		if i > 0 {
			b = append(b, ',')
		}
		eb, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		b = append(b, eb...)
	}
	w.reqs[key] = b
	return b, nil
}

var (
	labelsField       = []byte(`,"labels":`)
	requirementsField = []byte(`,"requirements":null`)
)

// entry is claim c's nodeClaims entry, valid until the next call. encoding/json writes
// claimOutput without its lists
// (options nil: omitted; requirements nil: null); the lists go where encoding/json puts them:
// the options before the labels, the requirements instead of the null. Both field names are
// found by their first occurrence: a string value holds no unescaped quote, so neither text
// can occur in one, and the labels field comes before anything with a map key.
func (w *claimJSON) entry(c *scheduling.NodeClaim, name string, estimated bool) ([]byte, error) {
	o, err := w.optionsOf(c)
	if err != nil {
		return nil, err
	}
	co := claimBaseOf(c, name)
	co.PriceEstimated = estimated
	if w.sets != nil {
		co.InstanceTypeOptionSet = &o.set
	}
	w.base.Reset()
	if err := w.baseEnc.Encode(co); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(w.base.Bytes(), []byte("\n"))
	out := w.out[:0]
	at := bytes.Index(b, labelsField)
	out = append(out, b[:at]...)
	if w.sets == nil && len(o.names) > 0 {
		out = append(out, `,"instanceTypeOptions":`...)
		out = append(out, o.json...)
	}
	b = b[at:]
	at = bytes.Index(b, requirementsField)
	out = append(out, b[:at]...)
	out = append(out, `,"requirements":[`...)
	first := true
	for _, k := range c.Requirements.Keys() {
		rb, err := w.requirementJSON(c.Requirements[k], o.set)
		if err != nil {
			return nil, err
		}
		if len(rb) == 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, rb...)
	}
	out = append(out, ']')
	w.out = append(out, b[at+len(requirementsField):]...)
	return w.out, nil
}
