# Sourced by .ci/run-lines and .ci/prepare-lines: `line_venv VERSION` makes (once) and prints the
# venv that holds only pyspark VERSION beside the main install's packages.
venvs="${PYSPARK_EXT_VENVS:-$HOME/.cache/pyspark_ext/venvs}"

line_venv() {
  local version=$1 venv="$venvs/pyspark-$1"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import pyspark,sys; sys.exit(pyspark.__version__ != '$version')" 2>/dev/null; then
    python -m venv --system-site-packages "$venv"
    "$venv/bin/python" -m pip install -q --no-deps "pyspark==$version"
  fi
  echo "$venv"
}

# The versions in .ci/spark-lines, one a line.
listed_lines() {
  grep -v '^#' .ci/spark-lines | grep -v '^$'
}
