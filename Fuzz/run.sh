#!/usr/bin/env bash
# Builds and runs the libFuzzer targets for IMAPCore's parsers.
#
#   Fuzz/run.sh [iterations] [target ...]
#
# iterations: libFuzzer -runs per target (default 1000000). targets: response-parser,
# command-parser (default: every target whose parser exists in Sources/IMAPCore).
#
# Each target is compiled with `swiftc -sanitize=fuzzer,address -O` straight from
# Sources/IMAPCore/**/*.swift plus its harness (Fuzz/<Name>Fuzz/main.swift), into .build-fuzz/.
# The seed corpus comes from the Dovecot fixtures ($MAILSEARCH_FIXTURES, default
# ../shared/fixtures beside the repository), one file per response or command; inputs libFuzzer
# finds are kept in .build-fuzz/<target>/corpus for the next run. Exits non-zero when a target
# crashes, trips AddressSanitizer, leaks, or times out; the reproducer is left in
# .build-fuzz/<target>/artifacts/ (rerun it with `.build-fuzz/<target>/fuzzer <file>`).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

iterations="${1:-1000000}"
shift || true
if ! [[ "$iterations" =~ ^[0-9]+$ ]]; then
    echo "error: iterations must be a number, not \"$iterations\"; usage: Fuzz/run.sh [iterations] [target ...]" >&2
    exit 64
fi

fixtures="${MAILSEARCH_FIXTURES:-$root/../shared/fixtures}/dovecot-2.3"
if [[ ! -f "$fixtures/session.server.txt" ]]; then
    echo "error: no fixtures at $fixtures; put shared/ beside the repository or set MAILSEARCH_FIXTURES" >&2
    exit 1
fi

build="$root/.build-fuzz"
mkdir -p "$build"

# The parsers that exist: the command parser arrives with a later change.
available=(response-parser)
if grep -rqs "struct CommandParser\b" Sources/IMAPCore; then available+=(command-parser); fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then targets=("${available[@]}"); fi

harness_directory() {
    case "$1" in
        response-parser) echo "Fuzz/ResponseParserFuzz" ;;
        command-parser) echo "Fuzz/CommandParserFuzz" ;;
        *) echo "error: unknown target \"$1\"; the targets are: response-parser command-parser" >&2; exit 64 ;;
    esac
}

# lld links the sanitizer runtimes without gold's "cannot export local symbol" noise.
linker=()
if [[ -x "$(dirname "$(command -v swiftc)")/ld.lld" ]] || command -v ld.lld >/dev/null; then
    linker=(-use-ld=lld)
fi

compile() {
    local target="$1" harness="$2" binary="$build/$1/fuzzer"
    local sources=()
    while IFS= read -r -d '' file; do sources+=("$file"); done \
        < <(find Sources/IMAPCore -name '*.swift' -print0 | sort -z)
    if [[ -x "$binary" ]] && [[ -z "$(find Sources/IMAPCore "$harness" Fuzz/run.sh -newer "$binary" -print -quit)" ]]; then
        echo "$target: $binary is up to date"
        return
    fi
    echo "$target: compiling ${#sources[@]} IMAPCore files + $harness/main.swift"
    local started=$SECONDS
    swiftc -sanitize=fuzzer,address -parse-as-library -package-name MailSearch -O -g \
        -swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
        -module-name IMAPCoreFuzz "${linker[@]}" \
        "${sources[@]}" "$harness/main.swift" -o "$binary"
    echo "$target: compiled in $((SECONDS - started)) s"
}

seed() {
    local target="$1" seeds="$build/$1/seeds"
    rm -rf "$seeds"
    mkdir -p "$seeds"
    local split=(env LC_ALL=C awk -v dir="$seeds" -f Fuzz/split-frames.awk)
    case "$target" in
        response-parser)
            "${split[@]}" -v prefix=session "$fixtures/session.server.txt"
            "${split[@]}" -v prefix=envelope -v limit=40 "$fixtures/fetch-envelope-20k.server.txt"
            "${split[@]}" -v prefix=bodystructure -v limit=40 "$fixtures/fetch-bodystructure-2k.server.txt"
            ;;
        command-parser)
            "${split[@]}" -v prefix=client "$fixtures/session.client.txt"
            ;;
    esac
    echo "$target: $(find "$seeds" -type f | wc -l) seed files from $fixtures"
}

failed=()
for target in "${targets[@]}"; do
    harness="$(harness_directory "$target")"
    mkdir -p "$build/$target/corpus" "$build/$target/artifacts"
    compile "$target" "$harness"
    seed "$target"
    log="$build/$target/last-run.log"
    echo "$target: running $iterations iterations (log: $log)"
    started=$SECONDS
    status=0
    # The Swift runtime's own backtracer would trip AddressSanitizer after a fatalError.
    SWIFT_BACKTRACE=enable=no "$build/$target/fuzzer" -runs="$iterations" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -dict=Fuzz/imap.dict -artifact_prefix="$build/$target/artifacts/" -print_final_stats=1 \
        "$build/$target/corpus" "$build/$target/seeds" >"$log" 2>&1 || status=$?
    elapsed=$((SECONDS - started))
    if [[ $status -ne 0 ]] || grep -q "^==[0-9]*==ERROR\|^SUMMARY: \(Address\|Leak\|Undefined\)" "$log"; then
        echo "$target: FAILED after $elapsed s (exit $status)" >&2
        grep -m 20 "ERROR\|Fatal error\|SUMMARY\|Test unit written\|artifact_prefix" "$log" >&2 || true
        failed+=("$target")
    else
        echo "$target: ok, $(grep -m1 -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" || echo "$iterations runs") ($elapsed s wall)"
        grep "stat::number_of_executed_units\|stat::peak_rss_mb\|cov: " "$log" | tail -3 | sed "s/^/  /"
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "error: fuzzing found problems in: ${failed[*]}; see .build-fuzz/<target>/last-run.log and artifacts/" >&2
    exit 1
fi
