// sbt build of the extension jar, for users who build with sbt. The project's own build compiles the
// same sources with the Scala compiler shipped inside pyspark (python -m pyspark_ext build);
// tests/test_build.py checks that this file agrees with it.
//
// One jar per Spark line: `sbt -Dspark.version=4.1.4 extension/package`. The shared sources are in
// extension/src/main/scala; what differs between lines is in extension/src/main/scala-spark-<from>[-<to>],
// and a build takes the folders whose range holds its Spark line, as pyspark_ext/jar.py does. The
// variant half and the Spark Connect plugin are in scala-spark-4.0-4.3: Spark 3.5 (Scala 2.12,
// `sbt -Dspark.version=3.5.9 extension/package`) has no VARIANT, and its jar carries neither.
ThisBuild / organization := "io.github.pysparkext"
ThisBuild / version := "0.1.0"

// The Scala each Spark line's releases ship (pyspark's jars/scala-library-*.jar).
val scalaOfSparkLine = Map("3.5" -> "2.12.18", "4.0" -> "2.13.16", "4.1" -> "2.13.17", "4.2" -> "2.13.18", "4.3" -> "2.13.18")
val sparkVersion = sys.props.getOrElse("spark.version", "4.3.0")
val sparkLine = sparkVersion.split('.').take(2).mkString(".")
require(scalaOfSparkLine.contains(sparkLine), s"Spark $sparkVersion is not a supported line")
ThisBuild / scalaVersion := scalaOfSparkLine(sparkLine)

def lineNumber(line: String): (Int, Int) = { val Array(a, b) = line.split('.'); (a.toInt, b.toInt) }

/** The shim folders whose range (scala-spark-4.0-4.2, scala-spark-4.3 ...) holds `line`. */
def shimFolders(main: File, line: String): Seq[File] = {
  val Shim = """scala-spark-(\d+\.\d+)(?:-(\d+\.\d+))?""".r
  val at = lineNumber(line)
  Option(main.listFiles).toSeq.flatten.sortBy(_.getName).filter { dir =>
    dir.getName match {
      case Shim(from, to) =>
        val (low, high) = (lineNumber(from), lineNumber(Option(to).getOrElse(from)))
        Ordering[(Int, Int)].lteq(low, at) && Ordering[(Int, Int)].lteq(at, high)
      case _ => false
    }
  }
}

lazy val extension = (project in file("extension"))
  .settings(
    name := s"pyspark-ext-spark-$sparkLine",
    javacOptions ++= Seq("--release", "17"),
    scalacOptions ++= Seq("-release", "17", "-deprecation"),
    Compile / unmanagedSourceDirectories ++= shimFolders((Compile / sourceDirectory).value, sparkLine),
    // The producers' settings are declared as data beside the Python that reads them; ExtConf
    // registers them from the jar's copy, at the path pyspark_ext/jar.py gives it (relative to
    // the repository, which is therefore a resource directory holding just that file).
    Compile / unmanagedResourceDirectories += (ThisBuild / baseDirectory).value,
    Compile / unmanagedResources := Seq((ThisBuild / baseDirectory).value / "pyspark_ext" / "producers" / "settings.tsv"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % "provided",
      "org.apache.spark" %% "spark-catalyst" % sparkVersion % "provided"
    ) ++ (
      // the Spark Connect relation plugin (pysparkext.connect, 4.x only); Connect servers ship this jar
      if (sparkLine == "3.5") Nil
      else Seq("org.apache.spark" %% "spark-connect" % sparkVersion % "provided")
    )
  )

lazy val root = (project in file("."))
  .aggregate(extension)
  .settings(publish / skip := true)
