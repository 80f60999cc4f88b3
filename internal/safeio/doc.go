// Package safeio is serq's one way to read a file and its one way to
// write one (docs/cli.md §10–§12): every file serq opens goes through
// [Kind.Read] or [Kind.Open], every file it writes through a [Batch]
// ([WriteFile] is a batch of one), and every string from a program, a
// tour or an IR that reaches a terminal, a cast, a report or a CSV goes
// through [Printable] or a [CSV] writer.
//
// # Reading
//
// A [Kind] is a kind of input: what it is called in errors ("a source
// file", "a tour"), the names it accepts (extensions such as ".sq", or
// none for any name), the most bytes it may have, and whether an error
// may quote its lines. Reading
//
//   - takes only a regular file (after symlinks): a directory, FIFO,
//     device or socket is refused with [ErrNotRegular] before it is opened
//     for reading, so /dev/zero cannot fill memory and a FIFO cannot block;
//   - refuses a name the kind does not accept ([WrongKindError]) before
//     anything is read: `use "secret.txt"` reads nothing, in `serq check`
//     and in the language server alike;
//   - stops at the kind's limit with a [TooLargeError], whatever the file
//     claims its size is (a file that grows while read included).
//
// The kinds are declared where their limits live: lang (programs,
// instances, and the .sq files that are libraries, fmt's inputs and the
// TUI's source lines: lang.MaxSourceSize), interp (traces), tui (tours),
// cmd/serq (IR, a sweep's shard files, serq import's config and profile). The
// quoting rule is [Kind.Quotes]: an error quotes a line only from a file
// of a kind that quotes and whose name the kind quotes (.sq source, .yaml
// tours), and only a line that [Quotable] allows, so `serq check
// /etc/shadow` prints where and what, never the line.
//
// # Writing
//
// Every output is a [Batch]: each file is written to a temporary file
// beside it (".NAME.tmp…") and all are renamed into place at
// [Batch.Commit]; a failure or [Batch.Abort] removes the temporaries and
// leaves the previous files as they were; a symlink at a target is
// replaced, never written through. The temporaries of every batch under
// way are registered, so that [Guard] can remove them when a signal
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT) stops a command that has no handler
// of its own, before it exits with 128 plus the signal's number.
//
// Names that come from a program (an observe's, a gauge's, a metric's)
// become file names through [FileNames]: a character that is not a
// letter, a digit, '_', '-' or '.' becomes '_', and a name starting with
// '.' is prefixed with '_', so no name can leave its directory, hide
// itself or be "." or ".."; two names that become the same file (case
// folded, for case-insensitive file systems) are refused. An output
// directory is locked ([LockDir], flock on the directory itself, nothing
// left in it) for as long as a command writes it: a second serq writing
// the same directory is refused at once instead of mixing its files with
// the first's.
//
// # Text that leaves serq
//
// [Printable] drops control characters (C0, DEL and C1, ESC and CSI
// among them) from a string, so a caption, a name or a message cannot
// move the cursor, clear the screen, retitle a window or write the
// clipboard (OSC 52). A [CSV] writer neutralises, by the OWASP rule,
// every cell that a spreadsheet would read as a formula (one starting
// with '=', '+', '-', '@', a tab or a carriage return) with a leading
// "'", unless the cell is a number as serq writes it; a cell starting
// with "'" gets one too, so [CSVValue] gives back the raw value exactly
// (the JSON beside a CSV keeps the raw value).
package safeio
