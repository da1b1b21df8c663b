// test/docs/run_markdown.py, which runs docs/tutorial.md as the
// docs-tutorial test: a ```text output block must match what the ```sh block
// before it printed (numbers and paths aside, `...` any text), so that an
// output the page shows cannot drift from what the tools print.
// RUN: rm -rf %t && split-file %s %t
// RUN: %python %S/run_markdown.py %t/good.md --root %t --work %t/work | FileCheck %s --check-prefix=GOOD
// GOOD: good.md: 1 files match, 2 command blocks ran, 2 outputs match
// RUN: not %python %S/run_markdown.py %t/stale.md --root %t --work %t/work 2>&1 | FileCheck %s --check-prefix=STALE
// STALE:      stale.md:7: the output shown has the line
// STALE-NEXT:   check: 4 checked against the output 4 of 4 variants agree on; 0 rejected
// STALE-NEXT: which is not (in this order) in what the command printed:
// RUN: not %python %S/run_markdown.py %t/order.md --root %t --work %t/work 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: order.md:7: the output shown has the line

//--- shown.txt
a file
//--- good.md
```text file=shown.txt
a file
```
```sh
echo "[1/2] k [d0=64]: tuned bucket [d0=64]: k__v3 (chunk=64) 0.07936 ms, 1.01x faster than the default k__v0"
echo "cache: $PWD/cache/tuning.json"
echo "  check: 4 checked, compared on the host in 1.2 ms" >&2
```
```text output
[1/2] k [d0=128]: tuned bucket [d0=128]: k__v1 (chunk=4) 1.5 ms...
cache: /tmp/elsewhere/cache/tuning.json
  check: 4 checked, compared on ... in 17 ms
```
```sh
echo second
```
```text output
second
```
//--- stale.md
```text file=shown.txt
a file
```
```sh
echo "  check: 4 checked against the output 4 of 4 variants agree on (the default's), compared on the host in 1.2 ms; 0 rejected"
```
```text output
  check: 4 checked against the output 4 of 4 variants agree on; 0 rejected
```
//--- order.md
```text file=shown.txt
a file
```
```sh
echo one; echo two
```
```text output
two
one
```
