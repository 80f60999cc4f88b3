package hardware

import (
	"fmt"
	"sort"
	"strings"
)

// GPU is what a step's cost reads of a GPU: datasheet figures.
type GPU struct {
	Name    string
	FLOPS   float64 // dense 16-bit tensor FLOP/s (without sparsity)
	HBM     float64 // memory bandwidth, bytes/s
	Memory  float64 // the memory the driver reports to PyTorch, bytes
	Link    float64 // per-direction bandwidth of the GPU-to-GPU link, bytes/s
	LinkTag string  // what the link is (NVLink 4, PCIe Gen4 x16, …)
}

const gib = 1 << 30

// gpus are the GPUs serq knows. Memory is what torch.cuda reports of the
// card (vLLM's total_gpu_memory), a little under its marketed size.
var gpus = map[string]GPU{
	"H100": {Name: "NVIDIA H100 SXM 80GB", FLOPS: 989.5e12, HBM: 3.35e12, Memory: 79.11 * gib, Link: 450e9, LinkTag: "NVLink 4, 900 GB/s both ways"},
	"H200": {Name: "NVIDIA H200 SXM 141GB", FLOPS: 989.5e12, HBM: 4.8e12, Memory: 139.8 * gib, Link: 450e9, LinkTag: "NVLink 4, 900 GB/s both ways"},
	"A100": {Name: "NVIDIA A100 SXM 80GB", FLOPS: 312e12, HBM: 2.039e12, Memory: 79.15 * gib, Link: 300e9, LinkTag: "NVLink 3, 600 GB/s both ways"},
	"L40S": {Name: "NVIDIA L40S 48GB", FLOPS: 362.05e12, HBM: 0.864e12, Memory: 44.39 * gib, Link: 32e9, LinkTag: "PCIe Gen4 x16, 64 GB/s both ways"},
}

// gpuAliases are other spellings of the same cards.
var gpuAliases = map[string]string{
	"H100-SXM": "H100", "H100-80GB": "H100", "H200-SXM": "H200",
	"A100-SXM": "A100", "A100-80GB": "A100", "A100-80": "A100",
}

// GPUs lists the names LookupGPU takes, sorted.
func GPUs() []string {
	var n []string
	for k := range gpus {
		n = append(n, k)
	}
	for k := range gpuAliases {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// LookupGPU finds a GPU by name (case-insensitive).
func LookupGPU(name string) (GPU, error) {
	key := strings.ToUpper(name)
	if a, ok := gpuAliases[key]; ok {
		key = a
	}
	if g, ok := gpus[key]; ok {
		return g, nil
	}
	return GPU{}, fmt.Errorf("unknown GPU %q: serq knows %s", name, strings.Join(GPUs(), ", "))
}
