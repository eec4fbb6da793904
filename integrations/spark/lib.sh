# Shared by test.sh and bench-split.sh (sourced, not run): the Spark set-up both use.

# spark_quiet_local TMP PYTHON: a Spark configuration in TMP/conf for local runs (errors only on the console,
# no UI, the driver on 127.0.0.1 with 1 GB, scratch space in TMP/sparktmp), and the environment that makes
# spark-submit use it and run PYTHON on both sides: the pip-installed Spark that matches pyspark, not
# SPARK_HOME's.
spark_quiet_local() {
    local tmp=$1 python=$2
    mkdir -p "$tmp/conf" "$tmp/sparktmp"
    cat > "$tmp/conf/log4j2.properties" <<'CONF'
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
CONF
    cat > "$tmp/conf/spark-defaults.conf" <<CONF
spark.ui.enabled                 false
spark.ui.showConsoleProgress     false
spark.driver.host                127.0.0.1
spark.driver.bindAddress         127.0.0.1
spark.local.dir                  $tmp/sparktmp
spark.driver.memory              1g
CONF
    export SPARK_CONF_DIR="$tmp/conf" SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON="$python" PYSPARK_DRIVER_PYTHON="$python"
    unset SPARK_HOME
}
