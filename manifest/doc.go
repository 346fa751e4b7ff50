// Package manifest loads the Kubernetes YAML and JSON that nodeplan plans with.
//
// [Load] reads files and folders (walked recursively, in lexical order, picking files that end
// in .yaml, .yml or .json), [Parse] reads one file's bytes. Both accept multi-document YAML
// ("---"), JSON (one object or a stream of them) and lists (kind: List as printed by kubectl,
// and typed lists such as PodList whose items omit their kind).
//
// The result is a [Set] of typed objects, kept in input order: NodePools and NodeClaims
// (karpenter.sh/v1), EC2NodeClasses (karpenter.k8s.aws/v1, defaulted and validated), Pods, Nodes,
// DaemonSets, PodDisruptionBudgets, PersistentVolumeClaims, PersistentVolumes, StorageClasses,
// CSINodes, Namespaces and Leases. Deployments, ReplicaSets, StatefulSets and Jobs are kept as [Workload]s
// and expanded into the pending Pods their controllers would create, named <workload>-<index>.
// A workload whose pods are themselves in the input (a dump of a live cluster) is not expanded
// again, and a ReplicaSet controlled by a Deployment of the input is represented by that
// Deployment. The kinds a cluster snapshot reads are the Set's embedded cluster.Objects
// ([Set.Snapshot] builds the snapshot, with the cloud's instance types), so that package
// cluster, and with it the engines, never import this decoder.
//
// A DaemonSet the input holds only pods of (kubectl get pods -A) is derived from its newest
// pod, without what the DaemonSet controller wrote into the pod for its node, so that new
// nodes carry its overhead; a [Warning] says when it has no pod on a Node its pods'
// nodeSelector and tolerations admit (its template's node affinity is not in its pods). A claim whose spec.volumeName names a PersistentVolume of the
// input that is free or reserved for it is bound to it, as the PV controller would bind it.
//
// Interruption messages (EventBridge messages as SQS delivers them, alone or in a JSON array,
// `aws sqs receive-message` output, or the [InterruptionKind] list) are parsed with package
// interruption into [Set.Interruptions].
//
// Objects of namespaced kinds given without a namespace are in "default"; objects without a
// UID get one derived from their namespace and name (a pod's is "uid-<namespace>/<name>").
// Expanded pods are pending, carry the template's labels and annotations and a controller
// owner reference (a Deployment's pods: to a ReplicaSet named after the Deployment); a
// StatefulSet's pods also get the claims of its volumeClaimTemplates. Nothing is sorted.
//
// Decoding is strict: an unknown or duplicated field of a kind nodeplan reads is an error, and
// so is such a kind in an apiVersion nodeplan does not know. Every other kind (Service,
// ConfigMap, a CRD of another project, ...) is skipped and counted in [Set.Skipped]. Errors are
// [*Error] values naming the file, the document, the object and the field. A kind nodeplan
// reads in the group that served it before (extensions/v1beta1 Deployment) is such an error.
//
// karpenter.sh/v1beta1 NodePools and NodeClaims are read as Karpenter 1.0's conversion webhook
// converted them (WhenUnderutilized becomes WhenEmptyOrUnderutilized with consolidateAfter 0s,
// expireAfter moves into the template, nodeClassRef gets its group and kind, the kubelet block
// moves into the v1.KubeletCompatibilityAnnotationKey annotation, a NodeClaim takes its
// NodePool's expireAfter), each with a [Warning] in [Set.Warnings] saying what to change;
// karpenter.k8s.aws/v1beta1 EC2NodeClasses likewise (see aws/apis/v1beta1).
package manifest
