#!/usr/bin/env bash
# Preflight for NativeAOT publishing, per RID:
#   - the C toolchain: compiles and links a tiny program the way ILC's link step does (clang driver,
#     --target, -fuse-ld, the same system libraries, PIE, relro), strips it like StripSymbols, reads
#     its ELF machine, and runs it (linux-arm64: under qemu-aarch64 with the cross C runtime);
#   - the AOT packs: whether ILCompiler and the runtime packs for that RID restore from the
#     configured package source (the same check a publish runs before restore).
# Exit 0 when the host RID is fully ready; the arm64 lines report, they do not fail the run.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work="$root/artifacts/doctor"
rm -rf "$work"; mkdir -p "$work"

ok()   { printf '  %-11s %-10s ok    %s\n' "$1" "$2" "$3"; }
fail() { printf '  %-11s %-10s FAIL  %s\n' "$1" "$2" "$3"; }

cat > "$work/hello.cpp" <<'CPP'
#include <cstdio>
#include <string>
#include <pthread.h>
static void* run(void*) { return nullptr; }
int main() {
  pthread_t t; pthread_create(&t, nullptr, run, nullptr); pthread_join(t, nullptr);
  std::string s = "hello from ";
  std::printf("%s%s\n", s.c_str(), __aarch64__ ? "aarch64" : "x86_64");
  return 0;
}
CPP
# __aarch64__ is undefined on x64; make the expression valid everywhere.
sed -i '1i #ifndef __aarch64__\n#define __aarch64__ 0\n#endif' "$work/hello.cpp"

host_ok=0
toolchain() {
  local rid=$1 triple=$2 machine=$3 linker=$4 runner=("${@:5}")
  local out="$work/hello-$rid"
  if ! command -v clang >/dev/null; then fail "$rid" toolchain "clang is missing (apt-get install clang)"; return 1; fi
  if ! clang++ --target="$triple" -O2 -c "$work/hello.cpp" -o "$out.o" 2>"$out.log"; then
    fail "$rid" toolchain "compile failed: $(head -n1 "$out.log") (missing g++-${triple%%-*}-linux-gnu / libc6-dev-${rid#linux-}-cross?)"; return 1
  fi
  if ! clang --target="$triple" -fuse-ld="$linker" "$out.o" -o "$out" -pie -Wl,-pie -Wl,--as-needed -Wl,--build-id=sha1 \
        -Wl,-z,relro -Wl,-z,now -Wl,--gc-sections -pthread -lstdc++ -ldl -lrt -lm 2>"$out.log"; then
    fail "$rid" toolchain "link ($linker) failed: $(grep -m1 -i error "$out.log")"; return 1
  fi
  if ! llvm-objcopy --strip-debug --strip-unneeded "$out" 2>"$out.log"; then
    fail "$rid" toolchain "llvm-objcopy failed (apt-get install llvm)"; return 1
  fi
  local actual; actual=$(LC_ALL=C readelf -h "$out" | sed -n 's/ *Machine: *//p')
  if [[ "$actual" != *"$machine"* ]]; then fail "$rid" toolchain "ELF machine is '$actual', expected $machine"; return 1; fi
  local said; said=$(${runner[@]+"${runner[@]}"} "$out" 2>&1)
  if [[ "$said" != "hello from ${triple%%-*}" ]]; then fail "$rid" toolchain "the linked program did not run: $said"; return 1; fi
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
# Linkers as the publish uses them: ILC's default (GNU ld) on the host, lld when cross-compiling
# if it is installed (build/CrossCompile.targets).
toolchain linux-x64 x86_64-linux-gnu "X86-64" bfd || host_ok=1
packs linux-x64 || host_ok=1
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [[ -z "$qemu" ]]; then
  fail linux-arm64 toolchain "qemu-user-static is missing (apt-get install qemu-user-static)"
else
  cross_linker=bfd; command -v ld.lld >/dev/null && cross_linker=lld
  toolchain linux-arm64 aarch64-linux-gnu "AArch64" "$cross_linker" "$qemu" -L /usr/aarch64-linux-gnu
fi
packs linux-arm64
echo "linux-arm64 publishes need the packs above; see README.md, 'linux-arm64 and missing AOT packs'."
exit $host_ok
