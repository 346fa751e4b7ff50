package manifest

import (
	"bytes"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// onePassKinds are the kinds a streamed item may be decoded as in one pass (yamltyped.go):
// those whose readers look at nothing of the object but its typed decoding (typed,
// readWorkload, readValidated), never at its JSON. NodePools and EC2NodeClasses, a handful
// per dump, are read from their JSON.
var onePassKinds = map[string]bool{
	"Pod": true, "Node": true, "PersistentVolumeClaim": true, "PersistentVolume": true,
	"DaemonSet": true, "PodDisruptionBudget": true, "StorageClass": true, "Namespace": true,
	"Lease": true, "CSINode": true, "Deployment": true, "ReplicaSet": true, "StatefulSet": true,
	"Job": true, kindNodeClaim: true,
}

// yamlItem reads a streamed List item from its plain YAML in one pass, when it is an object
// of a kind in onePassKinds, in the apiVersion nodeplan reads it in, that the one-pass decoder
// decodes; false, having read nothing, when not: the caller reads it from its JSON, as before.
// What it reads then is what the JSON gives (TestStreamReadsAsWhole, TestYAMLTypedAsJSON).
func (p *parser) yamlItem(src Source, item []byte) bool {
	av, k, ok := itemHeader(item)
	if !ok || !onePassKinds[k] || av != readers[k].apiVersion {
		return false
	}
	obj, err := scheme.New(schema.FromAPIVersionAndKind(av, k))
	if err != nil || !registeredAs(obj, av, k) {
		return false
	}
	into, ok := obj.(kubeObject)
	if !ok {
		return false
	}
	if p.strs == nil {
		p.strs = &stringTable{}
	}
	p.yaml.strs, p.yaml.dropFieldsV1 = p.strs, true
	if !p.yaml.item(item, into) {
		return false
	}
	// The header headerOf would have cut out of the item's JSON: apiVersion and kind as
	// guessed (else the guess was wrong), name and namespace without escapes in their JSON.
	tm, ok := into.GetObjectKind().(*metav1.TypeMeta)
	if !ok || tm.APIVersion != av || tm.Kind != k || !unescaped(into.GetName()) || !unescaped(into.GetNamespace()) {
		return false
	}
	m := map[string]any{"apiVersion": av, "kind": k, "metadata": map[string]any{"name": into.GetName(), "namespace": into.GetNamespace()}}
	p.decoded = into
	defer func() { p.decoded = nil }()
	p.object(src, m, predecodedJSON, "", "", 1, true)
	return true
}

// predecodedJSON stands for the JSON of an object decoded in one pass: no field of it is
// null (the decoder gave up on a struct given as null), so checkNullSpec finds none, and
// nothing else reads it.
var predecodedJSON = []byte("{}")

// unescaped: s is written in JSON as it is (no quote, backslash or control character).
func unescaped(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// itemHeader guesses an item's apiVersion and kind from its first two lines, as kubectl
// writes them ("- apiVersion: v1", "  kind: Pod"); the decoded object confirms them.
func itemHeader(item []byte) (apiVersion, kind string, ok bool) {
	first, rest, _ := bytes.Cut(item, []byte("\n"))
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	av, ok1 := bytes.CutPrefix(bytes.TrimRight(first, " \r"), []byte("- apiVersion: "))
	k, ok2 := bytes.CutPrefix(bytes.TrimRight(second, " \r"), []byte("  kind: "))
	if !ok1 || !ok2 {
		return "", "", false
	}
	return string(av), string(k), true
}
