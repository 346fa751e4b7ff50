package manifest

import (
	"fmt"

	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	awsv1beta1 "github.com/nodeplan/nodeplan/aws/apis/v1beta1"
)

// EC2NodeClasses are decoded strictly into awsv1.EC2NodeClass, defaulted and validated like
// NodePools; karpenter.k8s.aws/v1beta1 ones are converted as Karpenter 1.0's webhook did, with
// a warning saying what to change.

func init() {
	utilMust(awsv1.AddToScheme(scheme))
	utilMust(awsv1beta1.AddToScheme(scheme))
}

func utilMust(err error) {
	if err != nil {
		panic(err)
	}
}

// olderReader is the reader of kind in an older apiVersion that nodeplan converts (karpenter.sh/
// v1beta1 NodePools and NodeClaims, karpenter.k8s.aws/v1beta1 EC2NodeClasses).
func olderReader(apiVersion, kind string) (reader, bool) {
	switch apiVersion {
	case v1beta1APIVersion:
		rd, ok := v1beta1Readers[kind]
		return rd, ok
	case awsv1beta1.APIVersion:
		if kind == kindEC2NodeClass {
			return reader{awsv1beta1.APIVersion, false, readNodeClassV1beta1}, true
		}
	}
	return reader{}, false
}

// readNodeClass decodes a karpenter.k8s.aws/v1 EC2NodeClass strictly, defaults and validates it.
var readNodeClass = readValidated(func() *awsv1.EC2NodeClass { return &awsv1.EC2NodeClass{} })

// readNodeClassV1beta1 converts a karpenter.k8s.aws/v1beta1 EC2NodeClass and warns.
func readNodeClassV1beta1(p *parser, o *object) bool {
	old := &awsv1beta1.EC2NodeClass{}
	if !p.decodeNamed(o, old) {
		return false
	}
	nc, changes := old.Convert()
	o.meta = nc
	nc.SetDefaults()
	if !p.validate(o, nc.Validate()) {
		return false
	}
	msg := fmt.Sprintf("%s is no longer served (Karpenter 1.1 dropped it); read as Karpenter 1.0's conversion webhook converted it. To write it as %s: set apiVersion %s",
		awsv1beta1.APIVersion, awsv1.APIVersion, awsv1.APIVersion)
	for _, c := range changes {
		msg += "; " + c
	}
	msg += "; kubelet settings now belong in spec.kubelet (v1beta1 kept them on the NodePool)"
	p.set.Warnings = append(p.set.Warnings, Warning{Source: o.src, Object: o.ref.String(), Message: msg})
	return true
}
