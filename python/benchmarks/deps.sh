#!/usr/bin/env bash
# Installs, from Debian, what the benchmarks in this directory import beside
# phobos: the anchors they time Phobos against (NumPy, Dask, scikit-learn,
# xarray on Dask) and the readers of their inputs (h5py). Only what is missing
# is installed; run as root (or through sudo) on a Debian machine.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
need=()
for mod_pkg in numpy:python3-numpy dask.array:python3-dask scipy:python3-scipy \
	sklearn:python3-sklearn pandas:python3-pandas xarray:python3-xarray h5py:python3-h5py; do
	if ! /usr/bin/python3 -c "import ${mod_pkg%%:*}" >/dev/null 2>&1; then
		need+=("${mod_pkg#*:}")
	fi
done
if ! dpkg-query -W -f='${Status}' libopenblas0-pthread 2>/dev/null | grep -q 'install ok installed'; then
	need+=(libopenblas0-pthread)
fi
if ((${#need[@]})); then
	echo "== installing ${need[*]}"
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${need[@]}"
fi
