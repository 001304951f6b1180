#!/usr/bin/env bash
# Preflight for NativeAOT publishing, per RID:
#   - the C toolchain: compiles and links a tiny program the way the SDK's NativeAOT link step does by
#     default (clang driver, --target, GNU ld, the same system libraries, PIE, relro), strips it with
#     llvm-objcopy like StripSymbols, reads its ELF machine, and runs it (linux-arm64: under
#     qemu-aarch64 with the cross C runtime);
#   - the AOT packs: whether ILCompiler and the runtime packs (NativeAOT included) for that RID
#     restore from the configured package source (the same check a publish runs before restore).
# Exit 0 only when every RID it reports (linux-x64 and linux-arm64) is ready.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work="$root/artifacts/doctor"
rm -rf "$work"; mkdir -p "$work"

ok()   { printf '  %-11s %-10s ok    %s\n' "$1" "$2" "$3"; }
fail() { printf '  %-11s %-10s FAIL  %s\n' "$1" "$2" "$3"; }

cat > "$work/hello.c" <<'C'
#include <stdio.h>
#include <math.h>
#include <pthread.h>
static void* run(void* arg) { return arg; }
int main(void) {
  pthread_t t; pthread_create(&t, NULL, run, NULL); pthread_join(t, NULL);
#ifdef __aarch64__
  printf("hello from aarch64 %.0f\n", sqrt(4.0));
#else
  printf("hello from x86_64 %.0f\n", sqrt(4.0));
#endif
  return 0;
}
C

status=0
toolchain() {
  local rid=$1 triple=$2 machine=$3 linker=bfd runner=("${@:4}")
  local out="$work/hello-$rid"
  if ! command -v clang >/dev/null; then fail "$rid" toolchain "clang is missing (apt-get install clang)"; return 1; fi
  if ! clang --target="$triple" -O2 -c "$work/hello.c" -o "$out.o" 2>"$out.log"; then
    fail "$rid" toolchain "compile failed: $(head -n1 "$out.log") (missing libc6-dev-${rid#linux-}-cross?)"; return 1
  fi
  if ! clang --target="$triple" -fuse-ld="$linker" "$out.o" -o "$out" -pie -Wl,-pie -Wl,--as-needed -Wl,--build-id=sha1 \
        -Wl,-z,relro -Wl,-z,now -Wl,--gc-sections -pthread -ldl -lm 2>"$out.log"; then
    fail "$rid" toolchain "link ($linker) failed: $(grep -m1 -i error "$out.log")"; return 1
  fi
  if ! llvm-objcopy --strip-debug --strip-unneeded "$out" 2>"$out.log"; then
    fail "$rid" toolchain "llvm-objcopy failed (apt-get install llvm)"; return 1
  fi
  local actual; actual=$(LC_ALL=C readelf -h "$out" | sed -n 's/ *Machine: *//p')
  if [[ "$actual" != *"$machine"* ]]; then fail "$rid" toolchain "ELF machine is '$actual', expected $machine"; return 1; fi
  local said; said=$(${runner[@]+"${runner[@]}"} "$out" 2>&1)
  if [[ "$said" != "hello from ${triple%%-*} 2" ]]; then fail "$rid" toolchain "the linked program did not run: $said"; return 1; fi
  ok "$rid" toolchain "clang --target=$triple, -fuse-ld=$linker, llvm-objcopy; ELF $machine; ran${runner[0]:+ under ${runner[0]##*/}}: '$said'"
}

packs() {
  local rid=$1 out
  out=$(cd "$root/samples/HttpEndpoint" && dotnet msbuild -t:PrewireAotPacksPreflight -p:RuntimeIdentifier="$rid" \
        -p:PrewireForceAotPreflight=true -nologo -v:m 2>&1)
  if [[ $? == 0 && "$out" != *PREWIRE00* ]]; then
    ok "$rid" "AOT packs" "$(grep -o 'restore from the configured source: .*' <<<"$out" | sed 's/restore from the configured source: /restore: /')"
  else
    fail "$rid" "AOT packs" "$(grep -o 'does not have .*\. Nothing' <<<"$out" | sed 's/\. Nothing$//' | head -n1 || echo "$out" | tail -n 3)"
    return 1
  fi
}

echo "NativeAOT preflight ($(uname -m) host, .NET SDK $(dotnet --version))"
toolchain linux-x64 x86_64-linux-gnu "X86-64" || status=1
packs linux-x64 || status=1
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [[ -z "$qemu" ]]; then
  fail linux-arm64 toolchain "qemu-user-static is missing (apt-get install qemu-user-static)"; status=1
else
  toolchain linux-arm64 aarch64-linux-gnu "AArch64" "$qemu" -L /usr/aarch64-linux-gnu || status=1
fi
packs linux-arm64 || status=1
if (( status == 0 )); then echo "ready: NativeAOT publishes for linux-x64 and linux-arm64"; else echo "not ready: see the FAIL lines above (README.md, 'linux-arm64')"; fi
exit $status
