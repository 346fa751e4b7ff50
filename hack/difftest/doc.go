// Command difftest is a developer tool, not part of nodeplan: it generates seeded random
// `plan` and `disrupt` inputs, runs nodeplan and Karpenter's own code (the oracle binaries
// karpenter-plan and karpenter-disrupt, built outside the project) on each, and reports where
// they differ, keeping every diverging input for replay.
//
// It never imports Karpenter and nothing imports it; it only reads nodeplan's packages to check
// the hard constraints of a plan. Generation is deterministic per seed.
package main
