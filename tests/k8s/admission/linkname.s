// The evaluator declares the admission plugin's unexported compilePolicy without a body
// (go:linkname in main.go); a package with an assembly file may do that.
