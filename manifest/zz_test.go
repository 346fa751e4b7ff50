package manifest

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestZZSlow(t *testing.T) {
	data, _ := os.ReadFile("testdata/sock-shop.yaml")
	s := strings.ReplaceAll(string(data), "replicas: 1", "replicas: 99999")
	start := time.Now()
	set, err := Parse([]byte(s), "x")
	t.Log(time.Since(start), err, len(set.Pods))
}
