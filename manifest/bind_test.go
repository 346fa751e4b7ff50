package manifest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func TestPreBoundClaimsAreBound(t *testing.T) {
	const pv = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: vol-1}\nspec:\n  capacity: {storage: 10Gi}\n  accessModes: [ReadWriteOnce]\n  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0abc}\n%s  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.ebs.csi.aws.com/zone, operator: In, values: [us-east-1b]}]}]}}\n"
	const claim = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: db%s}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 10Gi}}\n  volumeName: %s\n"
	cases := []struct {
		name, claimRef, annotations, volume string
		bound                               bool
	}{
		{name: "free volume", volume: "vol-1", bound: true},
		{name: "volume reserved for the claim", claimRef: "  claimRef: {namespace: db, name: data}\n", volume: "vol-1", bound: true},
		{name: "volume reserved for another claim", claimRef: "  claimRef: {namespace: db, name: other}\n", volume: "vol-1"},
		{name: "volume reserved for another claim of that name", claimRef: "  claimRef: {namespace: db, name: data, uid: \"1234\"}\n", volume: "vol-1"},
		{name: "volume not in the input", volume: "vol-9"},
		{name: "bound already", annotations: ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}", volume: "vol-1", bound: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := sprintf(pv, tc.claimRef) + "---\n" + sprintf(claim, tc.annotations, tc.volume)
			s := parse(t, doc)
			require.Len(t, s.PersistentVolumeClaims, 1)
			c := s.PersistentVolumeClaims[0]
			assert.Equal(t, tc.bound, c.Annotations[bindCompletedAnnotation] != "")
			if tc.bound && tc.annotations == "" {
				assert.Equal(t, corev1.ClaimBound, c.Status.Phase)
				assert.Empty(t, s.givenPVCs[0].Annotations, "the claim given is not changed")
			}
		})
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
