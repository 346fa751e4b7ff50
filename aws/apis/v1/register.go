package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is Karpenter's AWS API group.
const Group = "karpenter.k8s.aws"

// Version is the API version of this package's types.
const Version = "v1"

// APIVersion is the apiVersion manifests of this package's kinds carry.
const APIVersion = Group + "/" + Version

// Kinds registered by AddToScheme.
const (
	KindEC2NodeClass     = "EC2NodeClass"
	KindEC2NodeClassList = "EC2NodeClassList"
)

// SchemeGroupVersion is karpenter.k8s.aws/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// AddToScheme registers EC2NodeClass and EC2NodeClassList under karpenter.k8s.aws/v1.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &EC2NodeClass{}, &EC2NodeClassList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}

var (
	_ runtime.Object = &EC2NodeClass{}
	_ runtime.Object = &EC2NodeClassList{}
)
