#!/usr/bin/env bash
# Installs what building and testing need, with apt. Idempotent: when everything is there it only
# checks (well under a second). Not root, or not Debian/Ubuntu: prints the packages and exits 1.
set -euo pipefail

packages=(
  clang llvm                        # NativeAOT's C toolchain: compiler driver and llvm-objcopy (StripSymbols)
  gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross
                                    # linux-arm64 cross toolchain: crt files and libgcc, GNU ld, the C runtime
  qemu-user-static                  # runs linux-arm64 binaries on this x64 host
  rabbitmq-server amqp-tools python3-pika
                                    # the throwaway broker for tests and the demo, and clients not written here
  iproute2                          # ss: free-port checks for the broker
  openssl                           # the broker's TLS certificates, made on the spot (build/broker.sh --tls)
  ca-certificates                   # the CA bundle the container images carry for amqps (build/Images)
  wrk hyperfine                     # HTTP load and whole-process timings
  valgrind time                     # the start-up gate: instructions (cachegrind), faults and peak RSS (GNU time)
  python3                           # build/codegen/amqp_methods.py (CI checks the generated files)
  prometheus                        # the real Prometheus server that scrapes the HttpEndpoint in the metrics test
  docker-registry umoci skopeo runc binutils
                                    # container images: a loopback registry, the base image, running it; readelf
)

say() { printf 'bootstrap: %s\n' "$*" >&2; }

command -v dotnet >/dev/null || { say "the .NET SDK 10 is not on PATH (see global.json); install it first"; exit 1; }

if ! command -v dpkg-query >/dev/null; then
  say "not a Debian/Ubuntu system; install the equivalents of: ${packages[*]}"
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# OpenSSL for the linux-arm64 apps' TLS under qemu, beside the cross C runtime they load (qemu -L
# /usr/aarch64-linux-gnu). Not libssl3:arm64 installed: that brings a libc6:arm64 of another build
# into the loader's search, and every arm64 binary then hung at start under qemu. Its two libraries
# are taken from the package instead.
arm64_openssl() {
  local sysroot=/usr/aarch64-linux-gnu/lib
  [[ -f $sysroot/libssl.so.3 && -f $sysroot/libcrypto.so.3 ]] && return 0
  [[ $(id -u) == 0 ]] || { say "linux-arm64 OpenSSL missing in $sysroot, and not root: run build/bootstrap.sh as root"; return 1; }
  dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64; apt-get update -qq; }
  local work; work=$(mktemp -d); chmod 755 "$work"
  (cd "$work" && apt-get download -qq libssl3:arm64 2>/dev/null && dpkg -x libssl3_*_arm64.deb x) \
    || { rm -rf "$work"; say "could not fetch libssl3:arm64"; return 1; }
  mkdir -p "$sysroot"
  cp "$work"/x/usr/lib/aarch64-linux-gnu/libssl.so.3 "$work"/x/usr/lib/aarch64-linux-gnu/libcrypto.so.3 "$sysroot"/
  rm -rf "$work"
  say "linux-arm64 OpenSSL in $sysroot"
}

if (( ${#missing[@]} == 0 )); then
  say "all packages present"
  arm64_openssl
  exit $?
fi

if [[ $(id -u) != 0 ]]; then
  say "missing packages, and not root: run  sudo apt-get install -y ${missing[*]}"
  exit 1
fi

say "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# The package's own service start is refused in containers; the scripts start their own node anyway.
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
say "installed: ${missing[*]}"
arm64_openssl
