package syntax

// CodeTokens gives the external tests (programs_test.go) the tokens that
// formatting must keep.
var CodeTokens = codeTokens
