package v1

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	kjson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	karpv1 "github.com/nodeplan/nodeplan/apis/v1"
)

// KubeletFor returns the kubelet configuration Karpenter's AWS provider uses for a NodePool's
// nodes: the v1beta1 NodePool kubelet block that Karpenter 1.0's conversion stored as JSON in
// the NodePool's compatibility.karpenter.sh/v1beta1-kubelet-conversion annotation when it is
// there (it takes precedence), else the NodeClass's spec.kubelet (nc may be nil). The annotation
// is decoded strictly and validated like spec.kubelet; errors name the NodePool and annotation.
func KubeletFor(np *karpv1.NodePool, nc *EC2NodeClass) (*KubeletConfiguration, error) {
	if raw, ok := np.Annotations[karpv1.KubeletCompatibilityAnnotationKey]; ok {
		path := field.NewPath("metadata", "annotations").Key(karpv1.KubeletCompatibilityAnnotationKey)
		k, err := decodeKubelet([]byte(raw))
		if err != nil {
			return nil, &KubeletAnnotationError{NodePool: np.Name, Field: path.String(), Err: err}
		}
		if errs := ValidateKubelet(k, path); len(errs) > 0 {
			return nil, &karpv1.ValidationError{Kind: karpv1.KindNodePool, Name: np.Name, Errs: errs}
		}
		return k, nil
	}
	if nc == nil {
		return nil, nil
	}
	return nc.Spec.Kubelet, nil
}

// KubeletAnnotationError is a NodePool's kubelet annotation that is not a kubelet
// configuration (not JSON, or a key spec.kubelet does not have); Err says why.
type KubeletAnnotationError struct {
	NodePool, Field string
	Err             error
}

func (e *KubeletAnnotationError) Error() string {
	return fmt.Sprintf("NodePool %q: %s: not a kubelet configuration: %v", e.NodePool, e.Field, e.Err)
}

func (e *KubeletAnnotationError) Unwrap() error { return e.Err }

// kubeletFields are the JSON names of KubeletConfiguration's fields.
var kubeletFields = func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeOf(KubeletConfiguration{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = true
	}
	return out
}()

// decodeKubelet decodes a kubelet configuration as the API server would: keys are
// case-sensitive and an unknown key is an error.
func decodeKubelet(raw []byte) (*KubeletConfiguration, error) {
	var keys map[string]any
	if err := kjson.Unmarshal(raw, &keys); err != nil {
		return nil, err
	}
	var unknown []string
	for key := range keys {
		if !kubeletFields[key] {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown field %q", strings.Join(unknown, `", "`))
	}
	k := &KubeletConfiguration{}
	if err := kjson.Unmarshal(raw, k); err != nil {
		return nil, err
	}
	return k, nil
}
