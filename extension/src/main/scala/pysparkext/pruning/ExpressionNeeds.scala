package pysparkext.pruning

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types.{ArrayType, MapType, StructType}

import pysparkext.pruning.Need._

/**
 * Propagates needs from an expression's result into its inputs. `need` is what the consumer needs
 * of the result; `None` means the expression is evaluated but its value is not used.
 *
 * Only expressions listed here see through to parts of their inputs: field and element
 * extraction, struct, array and conditional constructors, null tests, sizes, pass-through
 * aggregates and higher-order functions. Every other expression (comparisons, hashing, `to_json`,
 * casts, UDFs, anything unknown) needs its inputs whole, even when its own value is unused, so an
 * opaque function never sees a field the rule dropped.
 */
trait ExpressionNeeds {
  protected def needs: NeedMap

  /** Walks a subquery's plan, given what the enclosing expression needs of its output. */
  protected def visitSubqueryPlan(
      plan: org.apache.spark.sql.catalyst.plans.logical.LogicalPlan,
      outputNeed: Option[Need],
      valueColumns: Int): Unit

  final def visitWhole(e: Expression): Unit = visit(e, Some(Whole))

  final def visit(e: Expression, need: Option[Need]): Unit = e match {
    case a: AttributeReference => need.foreach(needs.add(a.exprId, _))
    case v: NamedLambdaVariable => need.foreach(needs.add(v.exprId, _))
    case OuterReference(a) => visit(a, need)
    case a: Alias => visit(a.child, need)
    case _: Literal => ()

    case g: GetStructField =>
      visit(g.child, need.map(field(g.childSchema(g.ordinal).name, _)))
    case g: GetArrayStructFields =>
      visit(g.child, need.map(n => Elements(field(g.field.name, ofElements(n)))))
    case g: GetArrayItem =>
      visit(g.child, need.map(Elements(_)))
      visitWhole(g.ordinal)
    case g: GetMapValue =>
      visit(g.child, need.map(Values(_)))
      visitWhole(g.key)
    case ea: ElementAt =>
      ea.left.dataType match {
        case _: ArrayType => visit(ea.left, need.map(Elements(_)))
        case _: MapType => visit(ea.left, need.map(Values(_)))
        case _ => visitWhole(ea.left)
      }
      visitWhole(ea.right)
      ea.defaultValueOutOfBound.foreach(visit(_, need))
    case MapValues(child) => visit(child, need.map(n => Values(ofElements(n))))
    case MapKeys(child) => visit(child, need.map(_ => Presence))
    case MapEntries(child) => visit(child, need.map {
      case Elements(Fields(fs)) => Values(fs.getOrElse("value", Presence))
      case Presence | Elements(Presence) => Values(Presence)
      case _ => Whole
    })
    case Flatten(child) => visit(child, need.map(n => Elements(Elements(ofElements(n)))))
    case s: Slice =>
      visit(s.x, need)
      visitWhole(s.start)
      visitWhole(s.length)
    case r: Reverse if r.dataType.isInstanceOf[ArrayType] => visit(r.child, need)
    case c: Concat if c.dataType.isInstanceOf[ArrayType] => c.children.foreach(visit(_, need))
    case z: ArraysZip =>
      val names = z.names.map(_.eval().toString)
      val fields: String => Option[Need] = need match {
        case Some(Elements(Fields(fs))) => n => Some(fs.getOrElse(n, Presence))
        case Some(Presence) | Some(Elements(Presence)) => _ => Some(Presence)
        case Some(_) => _ => Some(Whole)
        case None => _ => None
      }
      z.children.zip(names).foreach { case (c, n) => visit(c, fields(n).map(Elements(_))) }

    case s: Size => visit(s.child, Some(Presence))
    case IsNull(child) => visit(child, Some(Presence))
    case IsNotNull(child) => visit(child, Some(Presence))
    case k: KnownNotNull => visit(k.child, need)
    case k: KnownNullable => visit(k.child, need)

    case c: CreateNamedStruct =>
      val wanted: String => Option[Need] = need match {
        case Some(Fields(fs)) => fs.get
        case Some(Presence) | None => _ => None
        case Some(_) => _ => Some(Whole)
      }
      c.nameExprs.zip(c.valExprs).foreach { case (n, v) =>
        visit(n, None)
        visit(v, wanted(n.eval().toString))
      }
    case c: CreateArray =>
      val elementNeed = need match {
        case Some(Presence) | None => None
        case Some(n) => Some(ofElements(n))
      }
      c.children.foreach(visit(_, elementNeed))
    case u: UpdateFields => visit(u.evalExpr, need)

    case i: If =>
      visitWhole(i.predicate)
      visit(i.trueValue, need)
      visit(i.falseValue, need)
    case c: CaseWhen =>
      c.branches.foreach { case (cond, value) => visitWhole(cond); visit(value, need) }
      c.elseValue.foreach(visit(_, need))
    case c: Coalesce => c.children.foreach(visit(_, need.map(merge(_, Presence))))

    case agg: AggregateExpression if !agg.isDistinct =>
      agg.filter.foreach(visitWhole)
      visitAggregateFunction(agg.aggregateFunction, need)
    case w: WindowExpression =>
      w.windowSpec.children.foreach(visitWhole)
      visitWindowFunction(w.windowFunction, need)

    case h: HigherOrderFunction => visitHigherOrder(h, need)

    case s: SubqueryExpression => visitSubquery(s, need)

    case other => other.children.foreach(visitWhole)
  }

  private def visitAggregateFunction(f: AggregateFunction, need: Option[Need]): Unit = f match {
    case a: First => visit(a.child, need)
    case a: Last => visit(a.child, need)
    case a: AnyValue => visit(a.child, need)
    case c: Count => c.children.foreach(visit(_, Some(Presence)))
    case c: CollectList =>
      visit(c.child, Some(need.fold[Need](Presence)(n => merge(ofElements(n), Presence))))
    case m: MaxBy => visit(m.valueExpr, need); visitWhole(m.orderingExpr)
    case m: MinBy => visit(m.valueExpr, need); visitWhole(m.orderingExpr)
    case other => other.children.foreach(visitWhole)
  }

  private def visitWindowFunction(f: Expression, need: Option[Need]): Unit = f match {
    case l: Lag => visit(l.input, need); visitWhole(l.inputOffset); visit(l.default, need)
    case l: Lead => visit(l.input, need); visitWhole(l.offset); visit(l.default, need)
    case n: NthValue => visit(n.input, need); visitWhole(n.offset)
    case other => visit(other, need)
  }

  /** Needs on a lambda's arguments, read after visiting its body. */
  private def argumentNeeds(f: Expression): Seq[Option[Need]] = f match {
    case l: LambdaFunction => l.arguments.map(a => needs.get(a.exprId))
    case _ => Nil
  }

  private def body(f: Expression): Expression = f match {
    case l: LambdaFunction => l.function
    case other => other
  }

  private def elementsFromArgument(arg: Option[Need]): Need = Elements(arg.getOrElse(Presence))

  private def visitHigherOrder(h: HigherOrderFunction, need: Option[Need]): Unit = h match {
    case t: ArrayTransform =>
      visit(body(t.function), need.map(ofElements))
      visit(t.argument, Some(elementsFromArgument(argumentNeeds(t.function).head)))
    case f: ArrayFilter =>
      visitWhole(body(f.function))
      val arg = argumentNeeds(f.function).head
      val elem = (arg.toSeq ++ need.map(ofElements)).reduceOption(merge)
      visit(f.argument, Some(elementsFromArgument(elem)))
    case e: ArrayExists =>
      visitWhole(body(e.function))
      visit(e.argument, Some(elementsFromArgument(argumentNeeds(e.function).head)))
    case e: ArrayForAll =>
      visitWhole(body(e.function))
      visit(e.argument, Some(elementsFromArgument(argumentNeeds(e.function).head)))
    case a: ArrayAggregate =>
      visitWhole(a.zero)
      visitWhole(body(a.merge))
      visitWhole(body(a.finish))
      visit(a.argument, Some(elementsFromArgument(argumentNeeds(a.merge).lift(1).flatten)))
    case z: ZipWith =>
      visit(body(z.function), need.map(ofElements))
      val args = argumentNeeds(z.function)
      visit(z.left, Some(elementsFromArgument(args.head)))
      visit(z.right, Some(elementsFromArgument(args(1))))
    case s: ArraySort =>
      visitWhole(body(s.function))
      val elem = (argumentNeeds(s.function).flatten ++ need.map(ofElements)).reduceOption(merge)
      visit(s.argument, Some(elementsFromArgument(elem)))
    case m: MapFilter =>
      visitWhole(body(m.function))
      val value = (argumentNeeds(m.function).lift(1).flatten.toSeq ++ need.map(ofValues))
        .reduceOption(merge)
      visit(m.argument, Some(Values(value.getOrElse(Presence))))
    case t: TransformValues =>
      visit(body(t.function), need.map(ofValues))
      visit(t.argument, Some(Values(argumentNeeds(t.function).lift(1).flatten.getOrElse(Presence))))
    case other => other.children.foreach(c => visitWhole(body(c)))
  }

  private def visitSubquery(s: SubqueryExpression, need: Option[Need]): Unit = {
    // Output columns past the subquery's value only feed its pulled-up correlated conditions,
    // whose needs come from joinCond below.
    s match {
      case _: ScalarSubquery => visitSubqueryPlan(s.plan, need, valueColumns = 1)
      case _: Exists => visitSubqueryPlan(s.plan, None, valueColumns = 0)
      case l: ListQuery if l.numCols >= 0 =>
        visitSubqueryPlan(s.plan, Some(Whole), valueColumns = l.numCols)
      case _ => visitSubqueryPlan(s.plan, Some(Whole), valueColumns = s.plan.output.length)
    }
    // The correlated conditions already pulled out of the subquery plan reference outer columns.
    val joinCond = s match {
      case x: ScalarSubquery => x.joinCond
      case x: Exists => x.joinCond
      case x: ListQuery => x.joinCond
      case x: LateralSubquery => x.joinCond
      case other => other.children // unknown kind: its outer columns, whole
    }
    joinCond.foreach(visitWhole(_))
  }
}
