" serQ: comments as `// …`, two-space indentation as in the examples.
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,://
setlocal expandtab shiftwidth=2 softtabstop=2
setlocal cindent cinoptions=(2,W2

let b:undo_ftplugin = "setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< cindent< cinoptions<"
