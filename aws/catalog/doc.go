// Package catalog provides instance-type catalogs that need no cloud API: the embedded EC2
// catalog ([EC2], real us-east-1 on-demand prices, no AWS SDK dependency) and the
// instance-type catalog file format read by `nodeplan --instance-types FILE` ([Parse]).
//
// Both build [cloudprovider.InstanceTypes] whose requirements define every label key of the
// catalog: a type carries its own labels as In requirements and DoesNotExist for the catalog's
// other label keys, so that a pod or NodePool constraining a catalog key never matches a
// type that lacks it. Each catalog also reports its well-known label keys (the core
// v1.WellKnownLabels plus every label key of the catalog), which the scheduler uses to allow
// NodePools to leave those keys undefined.
package catalog
