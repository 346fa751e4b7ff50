package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeplan/nodeplan/internal/gendump"
	"github.com/nodeplan/nodeplan/internal/mutate"
)

// checkStream holds the stream (Load of a file) to the whole read of the same bytes (Parse,
// which checkFastPath holds to the general way): the same set, or the same error, to the
// letter. It reports whether the file was read as a stream.
func checkStream(t *testing.T, dir string, data []byte, limits Limits) bool {
	t.Helper()
	path := filepath.Join(dir, "dump.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	streamed, errStreamed := LoadLimited(limits, path)
	p := newParser(limits)
	p.set.InputBytes = int64(len(data))
	if int64(len(data)) > p.limits.MaxInputBytes {
		p.errs = append(p.errs, &Error{Source: Source{File: path}, Err: &LimitError{Limit: LimitInputBytes, Max: p.limits.MaxInputBytes}})
	} else {
		p.read(data, path)
	}
	whole, errWhole := p.finish()
	checkSameAnswer(t, "stream", streamed, errStreamed, "whole", whole, errWhole)
	if errStreamed == nil && streamed.InputBytes != whole.InputBytes {
		t.Fatalf("stream read %d bytes, whole %d", streamed.InputBytes, whole.InputBytes)
	}
	q := newParser(limits)
	return q.streamList(path, path, q.limits.MaxInputBytes)
}

// TestStreamReadsAsWhole: a kubectl dump is read item by item (streamList), into what the
// whole document gives; so are its deterministic mutations (hostile numbers, broken lines,
// lost and repeated lines, cut files) and hand-made shapes the stream must give back to the
// whole read after reading items (another List kind, comments, flow style, a second items
// key, errors, a byte limit).
func TestStreamReadsAsWhole(t *testing.T) {
	dir := t.TempDir()
	var dump bytes.Buffer
	if err := gendump.Write(&dump, gendump.Options{Pods: 100, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	data := dump.Bytes()
	if !checkStream(t, dir, data, Limits{}) {
		t.Fatal("the dump was not read as a stream")
	}
	cases := 8 // each one the whole read falls back on reads the dump the general way: slow
	if testing.Short() {
		cases = 2
	}
	for i := range cases {
		checkStream(t, dir, mutate.Case(data, uint64(i)), Limits{})
	}
	items := strings.Index(string(data), "\nitems:\n") + 1
	tail := strings.LastIndex(string(data), "\nkind: List")
	if items <= 0 || tail < 0 {
		t.Fatal("the dump is not a List as kubectl writes it")
	}
	head, body, end := string(data[:items]), string(data[items:tail+1]), string(data[tail+1:])
	pod := "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: extra\n  spec:\n    containers:\n    - name: a\n"
	for name, c := range map[string]struct {
		data     string
		streamed bool
	}{
		"crlf":               {strings.ReplaceAll(string(data), "\n", "\r\n"), true},
		"blank lines":        {head + "\n" + strings.Replace(body, "\n- ", "\n\n- ", 3) + "\n" + end, true},
		"PodList":            {head + body + strings.Replace(end, "kind: List", "kind: PodList", 1), false},
		"apiVersion v2":      {strings.Replace(head, "apiVersion: v1", "apiVersion: v2", 1) + body + end, false},
		"comment at the end": {string(data) + "# the end\n", false},
		"flow item":          {head + body + "- {apiVersion: v1, kind: Namespace, metadata: {name: x}}\n" + end, false},
		"items twice":        {head + body + end + "items:\n" + pod, false},
		"unknown List field": {head + body + end + "extra: 1\n", false},
		"defined twice":      {head + body + pod + pod + end, true},
		"bad field":          {head + body + strings.Replace(pod, "name: a", "name: a\n      bogus: 1", 1) + end, true},
		"indented items":     {head + strings.Replace(strings.ReplaceAll(body, "\n", "\n  "), "items:\n  ", "items:\n", 1) + end, false},
		"second document":    {string(data) + "---\n" + pod[2:], false},
		"no items":           {head + end, false},
		"byte order mark":    {"\xef\xbb\xbf" + string(data), false},
		"items at the end":   {head + end + body, true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := checkStream(t, dir, []byte(c.data), Limits{}); got != c.streamed {
				t.Errorf("streamed: %v, want %v", got, c.streamed)
			}
		})
	}
	t.Run("byte limit", func(t *testing.T) {
		if checkStream(t, dir, data, Limits{MaxInputBytes: int64(len(data)) - 1}) {
			t.Error("a file over the byte limit was streamed")
		}
	})
	t.Run("pod limit", func(t *testing.T) {
		checkStream(t, dir, data, Limits{MaxPods: 10})
	})
}
