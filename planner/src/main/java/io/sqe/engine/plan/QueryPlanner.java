package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.SqeException;
import io.sqe.engine.iceberg.FilterIntoScanRule;
import io.sqe.engine.iceberg.IcebergRules;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.plan.offload.TrinoStatements;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.RowLimits;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.engine.sql.SqlErrors;
import io.sqe.engine.sql.TypeAliases;
import io.sqe.engine.sql.functions.DateTimeFunctions;
import io.sqe.engine.sql.functions.SessionFunctions;
import io.sqe.engine.trace.Spans;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import io.sqe.engine.plan.physical.ColumnarLowering;
import io.sqe.engine.plan.physical.SqeRel;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.rel.rules.DateRangeRules;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRules;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.config.CalciteConnectionConfigImpl;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.ConventionTraitDef;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.externalize.RelWriterImpl;
import org.apache.calcite.sql.SqlExplainLevel;
import io.sqe.engine.exec.profile.ProfiledPlan;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.plan.volcano.VolcanoPlanner;
import org.apache.calcite.rel.RelCollationTraitDef;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.metadata.DefaultRelMetadataProvider;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.runtime.Bindable;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Table;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlShuttle;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorUtil;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.apache.calcite.tools.Program;
import org.apache.calcite.tools.Programs;

/**
 * Validates a query and compiles it: Calcite's standard optimisation (sub-query removal,
 * decorrelation, field trimming, cost-based planning with the join order of {@link JoinOrder},
 * hash joins only for equi-joins, join row counts from Iceberg statistics) with SQE's rules that
 * push work into Iceberg scans, then code generation.
 */
public final class QueryPlanner {
  /** Joins of more tables keep the FROM list's order (query.max-reordered-joins). */
  public static final int DEFAULT_MAX_REORDERED_JOINS = 16;

  private final Catalogs catalogs;
  private final List<SystemSchema> systemSchemas;
  private final CalciteConnectionConfig connectionConfig;
  private final AccessControl access;
  private final int maxReorderedJoins;
  private final PlannerOptions options;

  /** A planner that shows {@code systemSchemas} in every catalog and allows everything, with the default options. */
  public QueryPlanner(Catalogs catalogs, List<SystemSchema> systemSchemas) {
    this(catalogs, systemSchemas, AccessControl.ALLOW_ALL, DEFAULT_MAX_REORDERED_JOINS, PlannerOptions.DEFAULT);
  }

  /**
   * A planner that shows {@code systemSchemas} in every catalog, applies {@code access} to every
   * table and view a statement reads, orders the tables of joins of at most {@code
   * maxReorderedJoins} tables, and plans with {@code options} where a session does not override
   * them.
   */
  public QueryPlanner(
      Catalogs catalogs, List<SystemSchema> systemSchemas, AccessControl access, int maxReorderedJoins, PlannerOptions options) {
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.maxReorderedJoins = maxReorderedJoins;
    this.options = requireNonNull(options, "options is null");
    this.systemSchemas = List.copyOf(systemSchemas);
    this.access = requireNonNull(access, "access is null");
    Properties properties = new Properties();
    properties.setProperty(CalciteConnectionProperty.CASE_SENSITIVE.camelName(), "false");
    properties.setProperty(CalciteConnectionProperty.CONFORMANCE.camelName(), SqlDialect.CONFORMANCE.toString());
    this.connectionConfig = new CalciteConnectionConfigImpl(properties);
  }

  /**
   * The options {@code session}'s statements are planned with: the server's, with those the
   * session set; a session may lower {@link PlannerOptions#parallelism()} but not raise it above
   * the server's, which bounds the threads one query takes.
   */
  public PlannerOptions options(Session session) {
    PlannerOptions resolved = options.withAll(session.options());
    if (resolved.parallelism() > options.parallelism()) {
      resolved = resolved.with(PlannerOptions.PARALLELISM, Integer.toString(options.parallelism()));
    }
    return resolved;
  }

  /**
   * A fresh schema tree over every catalog as {@code session} sees it; tables are looked up as a
   * statement names them.
   */
  public CalciteSchema rootSchema(Session session) {
    return rootSchema(session, new PlanReads());
  }

  private CalciteSchema rootSchema(Session session, PlanReads reads) {
    CalciteSchema root = CalciteSchema.createRootSchema(false, false);
    TypeAliases.addTo(root);
    List<SystemSchema> inEveryCatalog = systemSchemas.stream().filter(s -> !s.inSystemCatalog()).toList();
    for (LakehouseCatalog catalog : catalogs.all()) {
      root.add(catalog.name(), new CatalogSchema(catalog, inEveryCatalog, session, access, reads));
    }
    List<SystemSchema> inSystemCatalog = systemSchemas.stream().filter(SystemSchema::inSystemCatalog).toList();
    Optional<LakehouseCatalog> sessionCatalog = catalogs.find(session.catalog());
    // A lakehouse catalog named system keeps its name.
    if (!inSystemCatalog.isEmpty() && sessionCatalog.isPresent() && catalogs.find(SystemSchema.SYSTEM_CATALOG).isEmpty()) {
      root.add(SystemSchema.SYSTEM_CATALOG, new SystemCatalog(inSystemCatalog, sessionCatalog.get(), session, reads));
    }
    return root;
  }

  public PlannedQuery plan(Session session, SqlNode query, String sql) {
    return plan(session, query, sql, List.of());
  }

  /**
   * Plans a query in which every reference to one of {@code tables} (by catalog and identifier)
   * reads that table object instead of the table loaded from the catalog; the write path uses this
   * to read the target of an UPDATE, DELETE or MERGE as a {@linkplain IcebergTable#forRowLevelWrite
   * write target}.
   */
  public PlannedQuery plan(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
    return Spans.traced("sqe.plan", () -> planTraced(session, query, sql, tables));
  }

  private PlannedQuery planTraced(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
    long start = System.nanoTime();
    Converted converted = convert(session, query, sql, tables);
    PlannerOptions planOptions = converted.options();
    VolcanoPlanner planner = converted.planner();
    PlanReads reads = converted.reads();
    CalciteSchema root = converted.root();
    SqlValidator validator = converted.validator();
    SqlNode validated = converted.validated();
    List<RelDataType> parameterTypes = converted.parameterTypes();
    EnumerableRel enumerable;
    RelRoot relRoot;
    try {
      relRoot = converted.relRoot().withRel(MicrosecondTimestamps.rewrite(converted.relRoot().rel));
      RelTraitSet desired =
          relRoot.rel.getTraitSet().replace(EnumerableConvention.INSTANCE).replace(relRoot.collation).simplify();
      RelNode rel = relRoot.rel;
      // Staged or pinned tables are not what a view's freshness was judged against.
      Program views = planOptions.materializedViewRewrite() && tables.isEmpty()
          ? (p, r, t, m, l) ->
              new MaterializedViewRewrite(catalogs, access, session.principal(), reads, converted.expander(), converted.reader())
                  .rewrite(r)
          : (p, r, t, m, l) -> r;
      RelNode best = Spans.traced("sqe.optimize",
          () -> program(planner.getRules(), maxReorderedJoins, views).run(planner, rel, desired, List.of(), List.of()));
      enumerable = project((EnumerableRel) best, relRoot);
      PlanInspection.inspect(enumerable, reads);
    } catch (SqeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SqlErrors.translatePlanning(e, sql);
    }

    Map<String, Object> internalParameters = new HashMap<>();
    SqeRel columnar = planOptions.columnar() ? ColumnarLowering.lower(enumerable) : null;
    RelNode shown = columnar != null ? columnar : enumerable;
    String explain = RelOptUtil.toString(shown);
    ProfiledPlan profile = profile(shown, explain);
    PlanningThreads.checkCancelled();
    EnumerableRel compiled =
        (EnumerableRel) OperatorImplementations.rewrite(SetSearches.rewrite(enumerable, internalParameters));
    // A columnar plan runs without the row runtime's code: that is compiled only if something binds it.
    Bindable<Object> bindable = columnar != null
        ? new DeferredCompile(compiled, internalParameters, sql)
        : DeferredCompile.now(compiled, internalParameters, sql);
    // The plan keeps its nodes (a deferred compilation needs them), and they keep their cluster's
    // planner: drop what the search registered, which a cached plan would otherwise hold.
    planner.clear();

    List<List<String>> origins = validator.getFieldOrigins(validated);
    return new PlannedQuery(
        sql,
        relRoot.validatedRowType,
        resultSchema(relRoot.validatedRowType, origins),
        parameterTypes,
        bindable,
        columnar == null ? null : SqeRel.implement(columnar),
        internalParameters,
        root.plus(),
        explain,
        profile,
        System.nanoTime() - start,
        reads,
        false,
        null);
  }

  /**
   * The plan's lines with the ids of their nodes, which its columnar operators count their figures
   * under; without them when the two texts disagree (a node whose attributes span lines).
   */
  private static ProfiledPlan profile(RelNode plan, String explain) {
    StringWriter text = new StringWriter();
    plan.explain(new RelWriterImpl(new PrintWriter(text), SqlExplainLevel.EXPPLAN_ATTRIBUTES, true));
    ProfiledPlan profile = ProfiledPlan.fromIdPrefixed(text.toString().stripTrailing());
    return profile.text().equals(explain.stripTrailing()) ? profile : ProfiledPlan.unprofiled(explain);
  }

  /**
   * The statement as Trino SQL ({@link TrinoStatements}): its logical plan with the principal's row
   * filters and column masks inlined, every table pinned to the snapshot planned against, and its
   * joins in this planner's order with the smaller input on the right ({@link JoinOrder#logical}).
   */
  public TrinoStatements.Statement trinoStatement(Session session, SqlNode query, String sql) {
    Converted converted = convert(session, query, sql, List.of());
    try {
      RelRoot relRoot = converted.relRoot();
      List<Integer> columns = relRoot.fields.stream().map(field -> field.getKey()).toList();
      RelNode ordered = JoinOrder.logical(converted.planner(), PolicyBoundary.strip(relRoot.rel), maxReorderedJoins);
      return TrinoStatements.write(ordered, columns);
    } catch (SqeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SqlErrors.translatePlanning(e, sql);
    }
  }

  /**
   * The columns and parameter types of a query, validated and converted to its logical plan but not
   * optimised or compiled: a view's definition needs no more (as Trino's CREATE VIEW analyses its
   * query without planning it), and optimising and compiling took most of a view's creation.
   */
  public QueryShape describe(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
    return Spans.traced("sqe.describe", () -> {
      Converted converted = convert(session, query, sql, tables);
      return new QueryShape(converted.relRoot().validatedRowType, converted.parameterTypes(), converted.reads());
    });
  }

  /**
   * A query's logical plan, validated and converted (views expanded, policies applied) but not
   * optimised or compiled: for a command that decides something from the plan's shape before it
   * pays for planning in full.
   */
  public RelNode logical(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
    return Spans.traced("sqe.describe", () -> convert(session, query, sql, tables).relRoot().rel);
  }

  /**
   * {@code query} as the SELECT of a write Trino runs ({@link TrinoStatements#select}): the
   * principal's row filters and column masks inlined, every table pinned, the joins ordered as
   * {@link #trinoStatement} orders them, and each result column cast to its Trino type of {@code
   * types} under its name of {@code names}. NOT_SUPPORTED for a query with {@code ?} parameters,
   * whose values Trino's statement cannot take.
   */
  public String trinoSelect(Session session, SqlNode query, String sql, List<String> types, List<String> names) {
    Converted converted = convert(session, query, sql, List.of());
    if (!converted.parameterTypes().isEmpty()) {
      throw new SqeException(ErrorCode.NOT_SUPPORTED, "Cannot offload a statement with ? parameters");
    }
    try {
      // Exactly the result's columns, so that the cast list matches them one to one.
      RelNode ordered = JoinOrder.logical(converted.planner(), PolicyBoundary.strip(converted.relRoot().project()), maxReorderedJoins);
      return TrinoStatements.select(ordered, types, names);
    } catch (SqeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SqlErrors.translatePlanning(e, sql);
    }
  }

  /** A statement validated and converted to its logical plan, with what planning it further needs. */
  private record Converted(
      RelRoot relRoot,
      SqlValidator validator,
      SqlNode validated,
      List<RelDataType> parameterTypes,
      CalciteSchema root,
      PlanReads reads,
      VolcanoPlanner planner,
      PlannerOptions options,
      RelOptTable.ViewExpander expander,
      SessionCatalogReader reader) {}

  private Converted convert(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
    PlannerOptions planOptions = options(session);
    if (catalogs.find(session.catalog()).isEmpty()) {
      throw new SqeException(ErrorCode.NOT_FOUND, "Catalog '" + session.catalog() + "' does not exist");
    }
    SqeJavaTypeFactory typeFactory = new SqeJavaTypeFactory();
    PlanReads reads = new PlanReads();
    reads.context(session);
    CalciteSchema root = rootSchema(session, reads);
    Map<List<String>, SchemaPlus> namespaces = new HashMap<>();
    if (!tables.isEmpty()) {
      reads.unversioned("tables staged by a transaction or pinned by a write");
    }
    for (IcebergTable table : tables) {
      override(root, namespaces, table, session, reads);
    }
    SessionCatalogReader reader =
        new SessionCatalogReader(root, session.catalog(), session.schema(), typeFactory, connectionConfig);
    SqlOperatorTable operators = SqlOperatorTables.chain(SqlDialect.operatorTable(), reader);
    SqlValidator validator =
        SqlValidatorUtil.newValidator(operators, reader, typeFactory, SqlDialect.validatorConfig());

    RowLimits.check(query);
    SqlNode validated;
    // The large IN lists of the statement and of the views it reads; each must have been converted.
    List<LargeInLists.Sample> samples = new ArrayList<>();
    try {
      SqlNode resolved = TableVersions.resolve(
          SessionFunctions.bind(query, session.catalog(), session.schema()),
          reader,
          (base, name, table, snapshotId, pos) -> register(root, namespaces, base, name, table, snapshotId, session, reads, pos),
          expression -> evaluate(session, expression),
          session.timeZone());
      samples.addAll(LargeInLists.sample(resolved, typeFactory));
      validated = Spans.traced("sqe.validate", () -> validator.validate(DateTimeFunctions.standardize(resolved)));
    } catch (RuntimeException e) {
      throw SqlErrors.translate(e);
    }
    List<RelDataType> parameterTypes = parameterTypes(validator, validated);

    // Volcano polls the flag before each rule; cancelled, it stops and keeps its best plan so far,
    // which the check after each step of the program refuses.
    VolcanoPlanner planner = new VolcanoPlanner(null, Contexts.of(connectionConfig, PlanningThreads.cancelFlag(), planOptions));
    planner.addRelTraitDef(ConventionTraitDef.INSTANCE);
    planner.addRelTraitDef(RelCollationTraitDef.INSTANCE);
    ConstantFolding.install(planner);
    RelOptUtil.registerDefaultRules(planner, false, false);
    // Hash joins that build on the smaller input; no merge joins, which sort both (unsorted) inputs.
    planner.removeRule(EnumerableRules.ENUMERABLE_JOIN_RULE);
    planner.removeRule(EnumerableRules.ENUMERABLE_MERGE_JOIN_RULE);
    planner.removeRule(DateRangeRules.FILTER_INSTANCE);
    planner.addRule(DateRanges.RULE);
    planner.addRule(HashJoinRule.INSTANCE);
    planner.addRule(OuterJoinCommute.RULE);
    planner.addRule(CountBelowOuterJoin.Config.DEFAULT.toRule());
    SetOperations.register(planner);
    for (RelOptRule rule : IcebergRules.all()) {
      planner.addRule(rule);
    }
    planner.addRule(PolicyBoundary.ENUMERABLE_RULE);
    RelOptCluster cluster = RelOptCluster.create(planner, new RexBuilder(typeFactory));
    cluster.setMetadataQuerySupplier(JoinCardinality::new);
    ViewExpansion expander = new ViewExpansion(root, typeFactory, cluster, session, namespaces, reads, samples);
    SqlToRelConverter converter =
        new InListConverter(
            expander,
            validator,
            reader,
            cluster,
            StandardConvertletTable.INSTANCE,
            converterConfig());

    RelRoot relRoot;
    try {
      relRoot = converter.convertQuery(validated, false, true);
      LargeInLists.checkConverted(samples);
      MapOrdering.check(relRoot.rel);
    } catch (SqeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SqlErrors.translatePlanning(e, sql);
    }
    return new Converted(relRoot, validator, validated, parameterTypes, root, reads, planner, planOptions, expander, reader);
  }


  private static SqlToRelConverter.Config converterConfig() {
    return SqlToRelConverter.config()
        .withExpand(false)
        .withTrimUnusedFields(false)
        .withInSubQueryThreshold(Integer.MAX_VALUE);
  }

  /**
   * Expands the views a statement reads into its plan: each view's SQL is parsed, validated
   * against the view's default catalog and schema, and converted in the statement's cluster, so
   * the whole plan is optimised together (filters on a view reach the scans of its tables).
   */
  private final class ViewExpansion implements RelOptTable.ViewExpander {
    private final CalciteSchema root;
    private final SqeJavaTypeFactory typeFactory;
    private final RelOptCluster cluster;
    private final Session session;
    private final Map<List<String>, SchemaPlus> namespaces;
    private final PlanReads reads;
    private final List<LargeInLists.Sample> samples;
    private final Set<List<String>> expanding = new HashSet<>();

    ViewExpansion(
        CalciteSchema root,
        SqeJavaTypeFactory typeFactory,
        RelOptCluster cluster,
        Session session,
        Map<List<String>, SchemaPlus> namespaces,
        PlanReads reads,
        List<LargeInLists.Sample> samples) {
      this.root = root;
      this.typeFactory = typeFactory;
      this.cluster = cluster;
      this.session = session;
      this.namespaces = namespaces;
      this.reads = reads;
      this.samples = samples;
    }

    @Override
    public RelRoot expandView(RelDataType rowType, String queryString, List<String> schemaPath, List<String> viewPath) {
      if (!expanding.add(viewPath)) {
        throw new SqeException(ErrorCode.INVALID_ARGUMENT, "View '" + String.join(".", viewPath) + "' refers to itself");
      }
      try {
        // A default catalog this server does not serve (another engine's name for it) means the view's own.
        String catalog = catalogs.find(schemaPath.get(0)).isPresent() ? schemaPath.get(0) : viewPath.get(0);
        SessionCatalogReader reader =
            new SessionCatalogReader(root, catalog, schemaPath.get(1), typeFactory, connectionConfig);
        SqlValidator validator =
            SqlValidatorUtil.newValidator(
                SqlOperatorTables.chain(SqlDialect.operatorTable(), reader), reader, typeFactory, SqlDialect.validatorConfig());
        SqlNode validated;
        try {
          SqlNode resolved = TableVersions.resolve(
              SessionFunctions.bind(unordered(SqeParser.parse(queryString)), session.catalog(), session.schema()),
              reader,
              (base, name, table, snapshotId, pos) -> register(root, namespaces, base, name, table, snapshotId, session, reads, pos),
              expression -> evaluate(session, expression),
              session.timeZone());
          samples.addAll(LargeInLists.sample(resolved, typeFactory));
          validated = validator.validate(DateTimeFunctions.standardize(resolved));
        } catch (RuntimeException e) {
          throw SqlErrors.translate(e);
        }
        SqlToRelConverter converter =
            new InListConverter(this, validator, reader, cluster, StandardConvertletTable.INSTANCE, converterConfig());
        return converter.convertQuery(validated, false, false);
      } finally {
        expanding.remove(viewPath);
      }
    }
  }

  /** A view's rows have no order: its ORDER BY only matters with a LIMIT or OFFSET. */
  private static SqlNode unordered(SqlNode query) {
    if (query instanceof SqlOrderBy) {
      SqlOrderBy orderBy = (SqlOrderBy) query;
      return orderBy.fetch == null && orderBy.offset == null ? orderBy.query : query;
    }
    if (query instanceof SqlWith) {
      SqlWith with = (SqlWith) query;
      SqlNode body = unordered(with.body);
      return body == with.body ? query : new SqlWith(with.getParserPosition(), with.withList, body);
    }
    return query;
  }

  /**
   * Puts {@code table} in its namespace of the schema tree, where it shadows the table of the same
   * name that the namespace would load from the catalog.
   */
  private void override(
      CalciteSchema root, Map<List<String>, SchemaPlus> namespaces, IcebergTable table, Session session, PlanReads reads) {
    String namespace = String.join(".", table.id().namespace().levels());
    NamespaceSchema guard = new NamespaceSchema(table.catalog(), namespace, access, session.principal(), reads);
    Table guarded = guard.guarded(table.id().name(), table);
    if (guarded == null) {
      return;
    }
    namespaceSchema(root, namespaces, table, guard).add(table.id().name(), guarded);
  }

  private static SchemaPlus namespaceSchema(
      CalciteSchema root, Map<List<String>, SchemaPlus> namespaces, IcebergTable table, NamespaceSchema guard) {
    String namespace = String.join(".", table.id().namespace().levels());
    return namespaces.computeIfAbsent(List.of(table.catalog().name(), namespace), key -> {
      SchemaPlus catalog = root.plus().getSubSchema(table.catalog().name());
      if (catalog == null) {
        throw new IllegalArgumentException("Unknown catalog " + table.catalog().name());
      }
      // An explicit sub-schema: the namespaces a catalog schema looks up are made afresh each time.
      return catalog.add(namespace, guard);
    });
  }

  /**
   * Registers a time-travel read of {@code base} as {@code name} in the base table's namespace,
   * under the access policy of the base table, and returns the identifier that names it.
   */
  private SqlIdentifier register(
      CalciteSchema root,
      Map<List<String>, SchemaPlus> namespaces,
      IcebergTable base,
      String name,
      IcebergTable pinned,
      long snapshotId,
      Session session,
      PlanReads reads,
      SqlParserPos pos) {
    reads.timeTravel(pinned, snapshotId);
    String namespace = String.join(".", base.id().namespace().levels());
    NamespaceSchema guard = new NamespaceSchema(base.catalog(), namespace, access, session.principal(), reads);
    Table guarded = guard.guarded(base.id().name(), pinned);
    if (guarded == null) {
      throw new SqeException(ErrorCode.NOT_FOUND, "Table '" + base.catalog().name() + "." + base.id() + "' does not exist");
    }
    namespaceSchema(root, namespaces, base, guard).add(name, guarded);
    return new SqlIdentifier(List.of(base.catalog().name(), namespace, name), pos);
  }

  /** The value of a FOR TIMESTAMP AS OF expression, computed as {@code SELECT expression} would. */
  private TableVersions.Value evaluate(Session session, SqlNode expression) {
    PlannedQuery planned = plan(session, TableVersions.select(expression), expression.toString());
    Map<String, Object> values = SessionVariables.of(session);
    values.putAll(planned.internalParameters());
    try (QueryRun run = QueryRun.untracked("time-travel")) {
      QueryContext context = new QueryContext(run.queryId(), planned.rootSchema(), new SqeJavaTypeFactory(), values, run);
      Enumerator<Object> rows = planned.bindable().bind(context).enumerator();
      try {
        Object value = rows.moveNext() ? rows.current() : null;
        return new TableVersions.Value(planned.resultType().getFieldList().get(0).getType(), value);
      } finally {
        rows.close();
      }
    } catch (SqeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT, "Cannot compute the time of FOR TIMESTAMP AS OF " + expression + ": " + e.getMessage(), e);
    }
  }

  /**
   * The types of the statement's parameters by their index, which is the order they appear in the
   * SQL text. Calcite's {@code getParameterRowType} lists them in tree order instead, which differs
   * when a statement was rewritten into a query (MERGE puts its ON condition after its values).
   */
  private static List<RelDataType> parameterTypes(SqlValidator validator, SqlNode validated) {
    Map<Integer, RelDataType> byIndex = new TreeMap<>();
    validated.accept(
        new SqlShuttle() {
          @Override
          public SqlNode visit(SqlDynamicParam param) {
            byIndex.putIfAbsent(param.getIndex(), validator.getValidatedNodeType(param));
            return param;
          }
        });
    List<RelDataType> types = new ArrayList<>();
    for (Map.Entry<Integer, RelDataType> entry : byIndex.entrySet()) {
      if (entry.getKey() != types.size()) {
        throw new IllegalStateException("Parameter ?" + types.size() + " is missing from the planned statement");
      }
      types.add(entry.getValue());
    }
    return types;
  }

  private static Program program(List<RelOptRule> rules, int maxReorderedJoins, Program materializedViews) {
    return checked(
        Programs.subQuery(DefaultRelMetadataProvider.INSTANCE),
        Programs.decorrelate(),
        // On the logical plan as converted, before rules change the shape views are matched by.
        materializedViews,
        ConstantFolding.program(),
        new FactorOrConditions(),
        FilterIntoScanRule.likesIntoScans(),
        Programs.trim(),
        new JoinOrder(rules, maxReorderedJoins),
        new SemiJoinReduction(),
        Programs.calc(DefaultRelMetadataProvider.INSTANCE),
        // It splits the final physical plan (semi-join reductions included) into parallel parts.
        ParallelAggregates.INSTANCE,
        // It computes once what the finished plan (parallel parts included) holds twice.
        SharedSubplans.INSTANCE,
        // After every step that makes or copies aggregates: their GROUP BY on primitive-key tables.
        HashGroupingAggregates.INSTANCE);
  }

  /** The steps in sequence, checking before and after each whether the statement was cancelled. */
  private static Program checked(Program... steps) {
    return (planner, rel, traits, materializations, lattices) -> {
      RelNode current = rel;
      for (Program step : steps) {
        PlanningThreads.checkCancelled();
        current = step.run(planner, current, traits, materializations, lattices);
      }
      PlanningThreads.checkCancelled();
      return current;
    };
  }

  /** Drops the columns the planner kept only for sorting, as Calcite's own prepare step does. */
  private static EnumerableRel project(EnumerableRel rel, RelRoot root) {
    if (root.isRefTrivial() && rel.getRowType().getFieldCount() == root.fields.size()) {
      return rel;
    }
    RexBuilder rexBuilder = rel.getCluster().getRexBuilder();
    List<RexNode> projects = new ArrayList<>();
    for (var field : root.fields) {
      projects.add(rexBuilder.makeInputRef(rel, field.getKey()));
    }
    RexProgram program = RexProgram.create(rel.getRowType(), projects, null, root.validatedRowType, rexBuilder);
    return EnumerableCalc.create(rel, program);
  }

  /** The Arrow schema of a result, with the column metadata Flight SQL clients display. */
  public static Schema resultSchema(RelDataType rowType, List<List<String>> origins) {
    List<Field> fields = new ArrayList<>();
    List<RelDataTypeField> columns = rowType.getFieldList();
    for (int i = 0; i < columns.size(); i++) {
      RelDataTypeField column = columns.get(i);
      Field field = CalciteTypeMapping.toArrow(column.getName(), column.getType());
      List<String> origin = origins == null || i >= origins.size() ? null : origins.get(i);
      Map<String, String> metadata = ResultColumnMetadata.of(column.getType(), origin, field.getMetadata());
      fields.add(new Field(field.getName(), new FieldType(field.isNullable(), field.getType(), null, metadata), field.getChildren()));
    }
    return new Schema(fields);
  }
}
