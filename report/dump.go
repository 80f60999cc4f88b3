package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/interp"
)

// The --dump files of docs/cli.md §6, in DIR (created like mkdir -p):
// DIR/<observe>.csv for every observe, samples or not, with header
// `time,session,turn,value`; and, when there are gauges,
// DIR/gauge/<gauge>.csv with header `time,value` and the change points.
// Floats are shortest round-trip without exponent; lines end in \n.
//
// A Dump writes them as the run goes: it is the run's
// interp.DumpSink, so the run keeps no sample for them. Every file goes to
// a temporary file beside it and all are renamed into place when the run
// has ended (safeio.Batch): a failed or interrupted run or dump leaves the
// previous files as they were and removes the directories it made, and a
// symlink at a file's name is replaced, never written through. Its errors
// are the file system's, unwrapped (the caller says "cannot write DIR: …").
type Dump struct {
	dir    string
	b      safeio.Batch
	unlock func()         // the lock on DIR (safeio.LockDir), nil once released
	obs    []*safeio.File // by observe
	gauges []*safeio.File // by gauge
	extra  []*safeio.File // faults/causes.csv and faults/leases.csv
	made   []string       // directories made, the deepest first
	line   []byte
	err    error // the first write error
}

// NewDump makes dir (and dir/gauge when there are gauges) and opens a
// file for every observe and gauge, its header written.
func NewDump(dir string, observes, gauges []string) (d *Dump, err error) {
	d = &Dump{dir: dir}
	defer func() {
		if err != nil {
			d.Abort()
		}
	}()
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		d.made = append(d.made, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	// The names are the program's: an IR may name an observe
	// "../../etc/x"; each becomes a file name in DIR (safeio.FileNames).
	obsFiles, err := safeio.FileNames("observe", observes, ".csv")
	if err != nil {
		return d, err
	}
	gaugeFiles, err := safeio.FileNames("gauge", gauges, ".csv")
	if err != nil {
		return d, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return d, err
	}
	if d.unlock, err = safeio.LockDir(dir); err != nil { // another serq writing DIR is refused
		return d, err
	}
	for _, name := range obsFiles {
		f, err := d.b.Open(filepath.Join(dir, name))
		if err != nil {
			return d, err
		}
		f.W.WriteString("time,session,turn,value\n")
		d.obs = append(d.obs, f)
	}
	if len(gauges) == 0 {
		return d, nil
	}
	gdir := filepath.Join(dir, "gauge")
	if err := os.Mkdir(gdir, 0o777); err == nil {
		d.made = append([]string{gdir}, d.made...)
	} else if !errors.Is(err, fs.ErrExist) {
		return d, err
	}
	if fi, err := os.Lstat(gdir); err != nil {
		return d, err
	} else if !fi.IsDir() {
		return d, fmt.Errorf("%s is not a directory (a symlink is not followed)", gdir)
	}
	for _, name := range gaugeFiles {
		f, err := d.b.Open(filepath.Join(gdir, name))
		if err != nil {
			return d, err
		}
		f.W.WriteString("time,value\n")
		d.gauges = append(d.gauges, f)
	}
	return d, nil
}

// Sample writes one observe sample's line.
func (d *Dump) Sample(i int, s interp.Sample) {
	if d.err != nil {
		return
	}
	line := AppendFloat(d.line[:0], s.Time)
	line = append(line, ',')
	line = strconv.AppendUint(line, s.Session, 10)
	line = append(line, ',')
	line = strconv.AppendUint(line, uint64(s.Turn), 10)
	line = append(line, ',')
	line = AppendFloat(line, s.Value)
	line = append(line, '\n')
	_, d.err = d.obs[i].W.Write(line)
	d.line = line
}

// Point writes one gauge change point's line.
func (d *Dump) Point(i int, p interp.TimePoint) {
	if d.err != nil {
		return
	}
	line := AppendFloat(d.line[:0], p.Time)
	line = append(line, ',')
	line = AppendFloat(line, p.Value)
	line = append(line, '\n')
	_, d.err = d.gauges[i].W.Write(line)
	d.line = line
}

// Err is the first write error, nil if none.
func (d *Dump) Err() error { return d.err }

// Failures adds, for a program that can fail, DIR/faults/causes.csv (a
// row per cause: `cause,requests,sessions`) and DIR/faults/leases.csv (a
// row per leased pool: `pool,granted,expired,late_reads,failed_reads,
// lost,stranded,live`), written with the rest at commit.
func (d *Dump) Failures(f *interp.Failures) {
	if d.err != nil || f == nil {
		return
	}
	fdir := filepath.Join(d.dir, "faults")
	if err := os.Mkdir(fdir, 0o777); err == nil {
		d.made = append([]string{fdir}, d.made...)
	} else if !errors.Is(err, fs.ErrExist) {
		d.err = err
		return
	}
	if fi, err := os.Lstat(fdir); err != nil {
		d.err = err
		return
	} else if !fi.IsDir() {
		d.err = fmt.Errorf("%s is not a directory (a symlink is not followed)", fdir)
		return
	}
	c, err := d.b.Open(filepath.Join(fdir, "causes.csv"))
	if err != nil {
		d.err = err
		return
	}
	c.W.WriteString("cause,requests,sessions\n")
	for _, x := range f.Causes {
		c.W.WriteString(csvField(x.Cause) + "," + strconv.FormatUint(x.Requests, 10) + "," + strconv.FormatUint(x.Sessions, 10) + "\n")
	}
	l, err := d.b.Open(filepath.Join(fdir, "leases.csv"))
	if err != nil {
		d.err = err
		return
	}
	l.W.WriteString("pool,granted,expired,late_reads,failed_reads,lost,stranded,live\n")
	for _, x := range f.Leases {
		line := x.Pool
		for _, n := range []uint64{x.Granted, x.Expired, x.LateReads, x.FailedReads, x.Lost, x.Stranded, x.Live} {
			line += "," + strconv.FormatUint(n, 10)
		}
		l.W.WriteString(line + "\n")
	}
	d.extra = append(d.extra, c, l)
}

// csvField quotes a CSV field that holds a comma, a quote or a line break,
// neutralised first as every CSV cell serq writes is (safeio.CSVCell).
func csvField(s string) string {
	s = safeio.CSVCell(s)
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// ErrStopped is Commit's error when its stop says so.
var ErrStopped = errors.New("interrupted")

// Commit closes every file and renames them all into place. stop, if not
// nil, is asked before each file; once it reports true the dump is
// abandoned with ErrStopped, and after each file closed each (if not nil)
// is called. On any error nothing is renamed.
func (d *Dump) Commit(stop func() bool, each func()) error {
	if d.err != nil {
		d.Abort()
		return d.err
	}
	for _, f := range append(append(d.obs[:len(d.obs):len(d.obs)], d.gauges...), d.extra...) {
		if stop != nil && stop() {
			d.Abort()
			return ErrStopped
		}
		if err := f.Close(); err != nil {
			d.Abort()
			return err
		}
		if each != nil {
			each()
		}
	}
	if err := d.b.Commit(); err != nil {
		d.Abort()
		return err
	}
	d.made = nil
	d.release()
	return nil
}

// Abort removes the temporary files and the directories made (if empty);
// after Commit it does nothing.
func (d *Dump) Abort() {
	d.b.Abort()
	for _, p := range d.made {
		os.Remove(p)
	}
	d.made = nil
	d.release()
}

// release lets go of DIR's lock.
func (d *Dump) release() {
	if d.unlock != nil {
		d.unlock()
		d.unlock = nil
	}
}
