#!/bin/bash
# Fetch Debian's Open MPI (openmpi-bin and the libraries it needs, about 7 MB)
# into .mpi/debs of this repository, so that bench/h200-compare.sh can start a
# real `mpirun -np 2` on a GPU machine that reaches no package registry.
#   here, in the project root, once:   bench/fetch-mpi.sh
#   then carry ".mpi" in the device run.
# The script unpacks them into /opt/gm-mpi there and runs mpirun with
# OPAL_PREFIX pointing at it (Open MPI finds its helpers and components
# relative to that prefix).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -qq
dest=$root/.mpi/debs
mkdir -p "$dest"
grep -qx '/.mpi/' "$root/.git/info/exclude" 2>/dev/null || echo '/.mpi/' >> "$root/.git/info/exclude"
# what every Linux GPU machine has, and what mpirun does not need to start ranks
# on one host (compilers, perl, Fortran, ssh; libxml2 with its 9 MB of ICU and X11
# serve only optional hwloc plugins)
skip='^(libc6|libgcc-s1|libstdc\+\+6|debconf|cdebconf|dpkg|install-info|perl-base|tar|gcc-12-base|libcrypt1|zlib1g|libselinux1|libpcre2-8-0|libzstd1|liblzma5|libbz2-1\.0|libmd0|debianutils|coreutils|sensible-utils|base-files|libacl1|libattr1|libgmp10|libsystemd0|libcap2|libgcrypt20|libgpg-error0|liblz4-1|init-system-helpers|lsb-base|sysvinit-utils|mount|util-linux|login|passwd|libaudit1|libaudit-common|libcap-ng0|libpam.*|libsemanage.*|libsepol2|libdb5\.3|libtinfo6|ncurses-base|libblkid1|libmount1|libsmartcols1|libudev1|libuuid1|libnsl2|libtirpc.*|libgssapi-krb5-2|libkrb5.*|libk5crypto3|libcom-err2|libkeyutils1|libssl3|adduser|readline-common|fonts-.*|xfonts-.*|fontconfig|ucf|x11-common|libc6-dev|libc-dev-bin|linux-libc-dev|libcrypt-dev|libnsl-dev|libtirpc-dev|rpcsvc-proto|gcc|cpp|binutils.*|perl|perl-modules.*|libperl.*|gfortran.*|libgfortran.*|openssh-client|libopenmpi-dev|mpi-default-dev|libicu.*|libxml2|libx11.*|libxcb.*|libxau.*|libxdmcp.*|libbsd0)$'
pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances openmpi-bin 2>/dev/null | grep '^\w' | sort -u | grep -v -E "$skip")
(cd "$dest" && apt-get download $pkgs 2>/dev/null >/dev/null)
echo "fetched $(ls "$dest" | wc -l) packages, $(du -sh "$dest" | cut -f1), into .mpi/debs"
