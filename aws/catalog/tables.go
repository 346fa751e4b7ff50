package catalog

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// EC2Tables are the facts of the embedded data file that EC2's DescribeInstanceTypes does not
// answer and Karpenter's AWS provider compiles into its binary instead, for every type of the
// file (priced or not): us-east-1 on-demand prices, the instance-network-bandwidth label
// (Mbps) and the branch-ENI limit behind vpc.amazonaws.com/pod-eni. Package aws reads them
// here rather than keeping a second copy.
type EC2Tables struct {
	OnDemandPrices   map[string]float64
	NetworkBandwidth map[string]string
	PodENIs          map[string]resource.Quantity
}

// LoadEC2Tables returns fresh EC2Tables from the embedded data file.
func LoadEC2Tables() (*EC2Tables, error) {
	f, err := decodeEC2()
	if err != nil {
		return nil, err
	}
	t := &EC2Tables{OnDemandPrices: map[string]float64{}, NetworkBandwidth: map[string]string{}, PodENIs: map[string]resource.Quantity{}}
	for _, ft := range f.InstanceTypes {
		if p, ok := ft.OnDemandPricePerHour[EC2Region]; ok {
			t.OnDemandPrices[ft.Name] = p
		}
		if bw, ok := ft.Labels["karpenter.k8s.aws/instance-network-bandwidth"]; ok {
			t.NetworkBandwidth[ft.Name] = bw
		}
		if s, ok := ft.Resources[string(podENIResource)]; ok {
			if q, err := resource.ParseQuantity(s); err == nil {
				t.PodENIs[ft.Name] = q
			}
		}
	}
	return t, nil
}

const podENIResource corev1.ResourceName = "vpc.amazonaws.com/pod-eni"
