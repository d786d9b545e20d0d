// sbt build of the extension jar, for users who build with sbt. The project's own build compiles the
// same sources with the Scala compiler shipped inside pyspark (python -m pyspark_ext build);
// tests/test_build.py checks that the versions below match the pinned pyspark.
ThisBuild / organization := "io.github.pysparkext"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.18"

val sparkVersion = "4.3.0"

lazy val extension = (project in file("extension"))
  .settings(
    name := "pyspark-ext",
    javacOptions ++= Seq("--release", "17"),
    scalacOptions ++= Seq("-release", "17", "-deprecation"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % "provided",
      "org.apache.spark" %% "spark-catalyst" % sparkVersion % "provided",
      // the Spark Connect relation plugin (pysparkext.connect); Connect servers ship this jar
      "org.apache.spark" %% "spark-connect" % sparkVersion % "provided"
    )
  )

lazy val root = (project in file("."))
  .aggregate(extension)
  .settings(publish / skip := true)
