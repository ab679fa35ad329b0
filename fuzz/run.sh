#!/usr/bin/env bash
# Fuzz smoke run of the ztwin-monitor decoders and the scenario parser.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     (default: 60 seconds each, all targets)
#   FUZZ_RUNS=N fuzz/run.sh [SECONDS]     (each target stops after N executions,
#                                          or after SECONDS if that comes first)
#
# Installs cargo-fuzz if missing (pinned, --locked), checks that a nightly
# toolchain works (if not, says so and exits 0: the smoke is skipped), writes the
# seed corpus (fuzz/corpus/, not committed), replays the committed regression
# inputs of fuzz/regressions/, then runs each target for SECONDS seconds.
# Crashes land in fuzz/artifacts/TARGET/ and make the script exit non-zero.
#
# Targets are built with debug assertions and overflow checks (-a) so that
# arithmetic overflow on hostile input is a finding, and without a sanitizer by
# default: ztwin-monitor has no unsafe code, and without ASan the targets run
# 4-5 times more inputs per second. FUZZ_SANITIZER=address brings ASan back.
set -euo pipefail

CARGO_FUZZ_VERSION=0.13.1
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(reader control record decode_record layout_pack release kernel scenario cp_command appldata)

case "$SECONDS_PER_TARGET" in
  ''|*[!0-9]*) echo "usage: fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

FUZZ_FLAGS=(--sanitizer "${FUZZ_SANITIZER:-none}" --debug-assertions)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: no working nightly toolchain (cargo +nightly --version failed)."
  echo "fuzz/run.sh: NOTE: fuzz smoke SKIPPED. Install one with: rustup toolchain install nightly"
  exit 0
fi
echo "fuzz/run.sh: $(cargo +nightly --version)"

if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  echo "fuzz/run.sh: installing cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi
echo "fuzz/run.sh: $(cargo fuzz --version)"

# Seed corpus, generated with the crate's own writer; the scenario parser
# starts from the bundled scenarios.
cargo +nightly run -q --release --example gen_corpus -- "$here/corpus"
mkdir -p corpus/scenario
cp ../studies/*.toml corpus/scenario/
mkdir -p corpus/cp_command
printf 'defseg DCSS1G 20000-5FFFF sr loadnshr' > corpus/cp_command/defseg
printf 'q nss name dcss1g map' > corpus/cp_command/query
printf 'loadshr DCSS1G' > corpus/cp_command/diag64
printf 'define vfb-512 as 0300 blk 4194296' > corpus/cp_command/define-vfb
printf 'set vdisk syslim infinite' > corpus/cp_command/set-vdisk
printf 'q vdisk userlim' > corpus/cp_command/query-vdisk
printf 'detach 0300' > corpus/cp_command/detach
printf 'set mdc storage 16M 2G' > corpus/cp_command/set-mdc-storage
printf 'set mdc storage bias 1.25' > corpus/cp_command/set-mdc-bias
printf 'q frames' > corpus/cp_command/query-frames

status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  # The kernel reads whole files: it starts from the reader's seed files.
  if [ "$t" = kernel ] && [ -z "$(ls -A corpus/kernel)" ]; then cp corpus/reader/* corpus/kernel/; fi
  # Max input size: whole small files for the reader, one block or record otherwise.
  case "$t" in
    reader|release|kernel) max_len=65536 ;;
    scenario) max_len=16384 ;;
    *) max_len=4096 ;;
  esac
  # Replay committed regression inputs first (file names start with the target).
  regs=()
  for f in regressions/"$t"-*; do
    [ -f "$f" ] && regs+=("$f")
  done
  if [ ${#regs[@]} -gt 0 ]; then
    echo "== $t: replaying ${#regs[@]} regression input(s)"
    cargo +nightly fuzz run "${FUZZ_FLAGS[@]}" "$t" "${regs[@]}" || { echo "== $t: REGRESSION INPUT FAILS"; status=1; }
  fi
  runs=()
  if [ -n "${FUZZ_RUNS:-}" ]; then
    runs=(-runs="$FUZZ_RUNS")
    echo "== $t: fuzzing for $FUZZ_RUNS executions (at most ${SECONDS_PER_TARGET}s)"
  else
    echo "== $t: fuzzing for ${SECONDS_PER_TARGET}s"
  fi
  log="artifacts/$t/run.log"
  set +e
  cargo +nightly fuzz run "${FUZZ_FLAGS[@]}" "$t" "corpus/$t" -- \
    -max_total_time="$SECONDS_PER_TARGET" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    "${runs[@]}" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  grep -E '^(INFO: seed corpus|#[0-9]+ +DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|stat::peak_rss_mb|SUMMARY|thread .* panicked|==[0-9]+== ERROR)' "$log" || true
  if [ "$rc" -ne 0 ] || grep -qE 'panicked|deadly signal|ERROR: libFuzzer' "$log"; then
    echo "== $t: CRASH (exit $rc; see $here/$log and $here/artifacts/$t/)"
    grep -A 30 -E 'panicked|ERROR: libFuzzer' "$log" | head -60 || true
    status=1
  else
    echo "== $t: no crash"
  fi
done
exit $status
