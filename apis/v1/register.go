package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Version is the API version of this package's types.
const Version = "v1"

// APIVersion is the apiVersion manifests of this package's kinds carry.
const APIVersion = Group + "/" + Version

// Kinds registered by AddToScheme.
const (
	KindNodePool      = "NodePool"
	KindNodePoolList  = "NodePoolList"
	KindNodeClaim     = "NodeClaim"
	KindNodeClaimList = "NodeClaimList"
)

// SchemeGroupVersion is karpenter.sh/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// Resource returns the karpenter.sh group-qualified resource, e.g. "nodepools".
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

// AddToScheme registers NodePool, NodePoolList, NodeClaim and NodeClaimList (and the
// meta types every group version carries) under karpenter.sh/v1.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&NodePool{},
		&NodePoolList{},
		&NodeClaim{},
		&NodeClaimList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}

// Compile-time checks that the kinds are runtime.Objects.
var (
	_ runtime.Object = &NodePool{}
	_ runtime.Object = &NodePoolList{}
	_ runtime.Object = &NodeClaim{}
	_ runtime.Object = &NodeClaimList{}
)
