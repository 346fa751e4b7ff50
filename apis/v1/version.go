package v1

import (
	"fmt"
	"strings"
)

// APIVersionError reports a karpenter.sh manifest written for an apiVersion nodeplan does
// not read, with what to change.
type APIVersionError struct {
	// APIVersion and Kind are as written in the manifest; Name is metadata.name.
	APIVersion, Kind, Name string
	// Hint says what to change.
	Hint string
}

// Error implements error.
func (e *APIVersionError) Error() string {
	return objectRef(e.Kind, e.Name) + ": " + e.Hint
}

// objectRef names an object in messages: `NodePool "default"`.
func objectRef(kind, name string) string {
	return fmt.Sprintf("%s %q", kind, name)
}

// Migration notes per old version, shown in CheckAPIVersion's errors.
const (
	nodePoolV1beta1Hint = "v1 renamed spec.disruption.consolidationPolicy WhenUnderutilized to WhenEmptyOrUnderutilized, " +
		"moved expireAfter to spec.template.spec.expireAfter, " +
		"and requires spec.template.spec.nodeClassRef group/kind/name"
	nodeClaimV1beta1Hint = "v1 added spec.expireAfter and spec.terminationGracePeriod, moved spec.kubelet to the NodeClass, " +
		"and requires spec.nodeClassRef group/kind/name"
)

// CheckAPIVersion checks the apiVersion of a manifest of the given kind (and name, for the
// message). For NodePool and NodeClaim (and their List kinds) it accepts karpenter.sh/v1
// only; for karpenter.sh/v1beta1 it explains what v1 changed, for the v1alpha5 kinds
// Provisioner and Machine which v1 kind replaced them. It returns nil for every other kind,
// so a manifest loader may call it on each document it reads. Errors are *APIVersionError.
func CheckAPIVersion(apiVersion, kind, name string) error {
	group, version := splitAPIVersion(apiVersion)
	base := strings.TrimSuffix(kind, "List")
	fail := func(hint string, args ...any) error {
		return &APIVersionError{APIVersion: apiVersion, Kind: kind, Name: name, Hint: fmt.Sprintf(hint, args...)}
	}
	switch base {
	case KindNodePool, KindNodeClaim:
		if apiVersion == APIVersion {
			return nil
		}
		target := APIVersion
		if group == Group && version == "v1beta1" {
			hint := nodePoolV1beta1Hint
			if base == KindNodeClaim {
				hint = nodeClaimV1beta1Hint
			}
			return fail("apiVersion %s is no longer served; change it to %s (%s)", apiVersion, target, hint)
		}
		if apiVersion == "" {
			return fail("apiVersion is missing; set it to %s", target)
		}
		return fail("apiVersion %s is not supported for kind %s; change it to %s", apiVersion, base, target)
	case "Provisioner", "Machine":
		if group != Group {
			return nil // some other API's kind of the same name
		}
		replacement := KindNodePool
		if base == "Machine" {
			replacement = KindNodeClaim
		}
		return fail("kind %s (apiVersion %s) is no longer served; rewrite it as a %s with apiVersion %s "+
			"(see Karpenter's v1alpha5 to v1 migration guide)", base, apiVersion, replacement, APIVersion)
	}
	return nil
}

// splitAPIVersion splits "group/version"; a core apiVersion ("v1") has an empty group.
func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}
