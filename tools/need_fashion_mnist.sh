#!/usr/bin/env bash
# need_fashion_mnist.sh: installs Debian's dataset-fashion-mnist (the IDX files under
# /usr/share/datasets/fashion-mnist) when it is missing; needs root or sudo only then.
set -euo pipefail
dpkg-query -W -f='${Status}' dataset-fashion-mnist 2>/dev/null | grep -q "install ok installed" &&
    exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq dataset-fashion-mnist >/dev/null
