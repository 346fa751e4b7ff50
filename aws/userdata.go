package aws

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// nodeadmInput is what the AL2023 bootstrap of one launch template needs.
type nodeadmInput struct {
	cluster  string
	info     ClusterInfo
	maxPods  int64
	kubelet  *awsv1.KubeletConfiguration
	labels   map[string]string
	taints   []corev1.Taint
	userData string // the NodeClass's spec.userData, merged first
}

// kubeletDomains are label domains the kubelet may not set on itself (the NodeRestriction
// admission plugin rejects them); Karpenter applies those labels after registration.
func restrictedKubeletLabel(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range []string{"kubernetes.io", "k8s.io"} {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// nodeadmUserData renders AL2023 user data: a MIME multipart document holding the NodeClass's
// own parts first, then a NodeConfig (application/node.eks.aws) with the cluster, max pods,
// the kubelet settings and the node's labels and taints as kubelet flags. The result is
// base64, as EC2 wants it.
func nodeadmUserData(in nodeadmInput) (string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary("//"); err != nil {
		return "", err
	}
	fmt.Fprintf(&buf, "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"//\"\r\n\r\n")
	parts, err := userParts(in.userData)
	if err != nil {
		return "", err
	}
	for _, p := range parts {
		pw, err := w.CreatePart(textproto.MIMEHeader{"Content-Type": {p.contentType}})
		if err != nil {
			return "", err
		}
		_, _ = pw.Write([]byte(p.body))
	}
	pw, err := w.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/node.eks.aws"}})
	if err != nil {
		return "", err
	}
	_, _ = pw.Write([]byte(nodeConfig(in)))
	if err := w.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

type mimePart struct{ contentType, body string }

// userParts splits the NodeClass's user data: a MIME multipart document into its parts, a
// NodeConfig into one node.eks.aws part, anything else into a shell script part. Errors never
// quote the user data (it may hold secrets).
func userParts(ud string) ([]mimePart, error) {
	if strings.TrimSpace(ud) == "" {
		return nil, nil
	}
	if !strings.HasPrefix(strings.TrimSpace(ud), "MIME-Version:") {
		ct := "text/x-shellscript; charset=\"us-ascii\""
		if strings.Contains(ud, "node.eks.aws/") {
			ct = "application/node.eks.aws"
		}
		return []mimePart{{contentType: ct, body: ud}}, nil
	}
	header, body, ok := strings.Cut(strings.ReplaceAll(ud, "\r\n", "\n"), "\n\n")
	if !ok {
		return nil, fmt.Errorf("spec.userData: a MIME document without a body")
	}
	var boundary string
	for _, line := range strings.Split(header, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Type") {
			if _, params, err := mime.ParseMediaType(strings.TrimSpace(v)); err == nil {
				boundary = params["boundary"]
			}
		}
	}
	if boundary == "" {
		return nil, fmt.Errorf("spec.userData: a MIME document without a multipart boundary")
	}
	r := multipart.NewReader(strings.NewReader(strings.ReplaceAll(body, "\n", "\r\n")), boundary)
	var out []mimePart
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("spec.userData: part %d is not valid MIME", len(out)+1)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return nil, fmt.Errorf("spec.userData: part %d cannot be read", len(out)+1)
		}
		ct := p.Header.Get("Content-Type")
		if ct == "" {
			ct = "text/x-shellscript"
		}
		out = append(out, mimePart{contentType: ct, body: strings.ReplaceAll(string(b), "\r\n", "\n")})
	}
}

// nodeConfig is the NodeConfig YAML (keys in a fixed order, so templates hash stably).
func nodeConfig(in nodeadmInput) string {
	var b strings.Builder
	b.WriteString("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n")
	fmt.Fprintf(&b, "    name: %q\n    apiServerEndpoint: %q\n    certificateAuthority: %q\n    cidr: %q\n", in.cluster, in.info.Endpoint, in.info.CABundle, in.info.ServiceCIDR)
	b.WriteString("  kubelet:\n    config:\n")
	fmt.Fprintf(&b, "      maxPods: %d\n", in.maxPods)
	if k := in.kubelet; k != nil {
		if len(k.ClusterDNS) > 0 {
			fmt.Fprintf(&b, "      clusterDNS: [%s]\n", quoted(k.ClusterDNS))
		}
		if k.PodsPerCore != nil {
			fmt.Fprintf(&b, "      podsPerCore: %d\n", *k.PodsPerCore)
		}
		for _, m := range []struct {
			name string
			v    map[string]string
		}{{"kubeReserved", k.KubeReserved}, {"systemReserved", k.SystemReserved}, {"evictionHard", k.EvictionHard}, {"evictionSoft", k.EvictionSoft}} {
			if len(m.v) > 0 {
				fmt.Fprintf(&b, "      %s:\n", m.name)
				for _, key := range slices.Sorted(maps.Keys(m.v)) {
					fmt.Fprintf(&b, "        %q: %q\n", key, m.v[key])
				}
			}
		}
	}
	b.WriteString("    flags:\n")
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(in.labels)) {
		if !restrictedKubeletLabel(k) {
			labels = append(labels, k+"="+in.labels[k])
		}
	}
	fmt.Fprintf(&b, "    - %q\n", "--node-labels="+strings.Join(labels, ","))
	if len(in.taints) > 0 {
		var ts []string
		for _, t := range in.taints {
			ts = append(ts, t.ToString())
		}
		fmt.Fprintf(&b, "    - %q\n", "--register-with-taints="+strings.Join(ts, ","))
	}
	return b.String()
}

func quoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
