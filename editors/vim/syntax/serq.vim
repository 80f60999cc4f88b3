" Vim syntax file
" Language:    serQ (the serving-specification language of serq, *.sq)
" Maintainer:  the serq authors
" The word lists are checked against the language's grammar, and the file
" is loaded in Vim and Neovim and read back at chosen places of the seed
" example, by editors/editors_test.go (go test ./editors).

if exists("b:current_syntax")
  finish
endif

syntax case match
syntax iskeyword @,48-57,_,192-255

" Of two matches that start at one column the one defined later wins, and
" a keyword beats every match. So the operators come first (the comments,
" defined after them, start with `/`), and the words that are more than
" one thing are matches, not keywords: `queue` declares a queue and
" `queue(s)` is a function; `running`, `waiting` and `batch` are words of
" the schedule (`advance running;`, `admit waiting`) unless a dot follows
" (the engine values, serqContext).
syntax match serqOperator "<=\|>=\|==\|!=\|&&\|||\|[-+*/^<>!=?:]"

syntax keyword serqTodo contained TODO FIXME XXX NOTE
syntax match serqLineComment "//.*$" contains=serqTodo,@Spell
syntax region serqBlockComment start="/\*" end="\*/" contains=serqTodo,@Spell
syntax region serqString start=+"+ end=+"+ oneline
syntax match serqNumber "\<[0-9][0-9_]*\%(\.[0-9_]*\)\=\%([eE][+-]\=[0-9]\+\)\="
syntax match serqNumber "\k\@<!\.[0-9][0-9_]*\%([eE][+-]\=[0-9]\+\)\="

syntax keyword serqDeclaration use let def fn main stage pool device engine workload server
syntax keyword serqDeclaration gauge claim share nic serve Size Cost state schedule execute
syntax keyword serqDeclaration faults picture timeout
syntax keyword serqStatement hold reserve reuse prefix cache lease grow drop release load run growing branch
syntax keyword serqStatement else while loop fork join choose in by end turn set observe
syntax keyword serqStatement mark tool transfer from to at admission with
syntax keyword serqStatement renew retry down after for
syntax keyword serqOption args number fifo ps delay step on cap block evict lru preempt
syntax keyword serqOption none lifo requeue head tail held spill via when admit tokens granule
syntax keyword serqOption advance only decode prefill first each most exclusive latency pull
syntax keyword serqOption push maxmin bottleneck arrive poisson renewal closed constant trace ordered hidden init
syntax keyword serqOption session given every some iteration of max min sum
syntax keyword serqOption refresh delay detect expiry failure stall fail
syntax keyword serqRetired budget chunk cost enter keep memory request

syntax match serqDeclaration "\<queue\>"
syntax match serqFunction "\<queue\ze\s*("
syntax match serqOption "\<\%(running\|waiting\|batch\)\>"
" The built-in names, written from model.Predeclared (go test ./editors -update)
syntax keyword serqFunction min max abs floor ceil sqrt exp ln pow busy work est_lambda est_rho
syntax keyword serqFunction est_wait used free cachedin holders queued budget_left blocksize up cost
syntax keyword serqFunction total count largest smallest prefix_total
syntax keyword serqVariable now waited size age last present decoding position admission remaining
syntax keyword serqVariable demand served arrived serial turn_no cached computed more new out think
syntax keyword serqVariable forced
syntax keyword serqConstant inf self
" Draws: ~exp(mean), ~uniform(lo, hi), ...
syntax match serqDraw "\~\s*\%(exp\|det\|uniform\|erlang\|h2\|bernoulli\)\>"
" Engine values: running.count, waiting.count, batch.tokens, ...
syntax match serqContext "\<\%(running\|waiting\|batch\)\.\%(count\|decoding\|kv_decode\|kv_prefill\|preempted\|admitted\|tokens\|prefilled\|attention\|position\|context_decode\|context_prefill\)\>"
" End of the built-in names

highlight default link serqTodo Todo
highlight default link serqLineComment Comment
highlight default link serqBlockComment Comment
highlight default link serqString String
highlight default link serqNumber Number
highlight default link serqDeclaration Structure
highlight default link serqStatement Statement
highlight default link serqOption Keyword
highlight default link serqRetired Keyword
highlight default link serqFunction Function
highlight default link serqDraw Function
highlight default link serqVariable Identifier
highlight default link serqContext Identifier
highlight default link serqConstant Constant
highlight default link serqOperator Operator

let b:current_syntax = "serq"
