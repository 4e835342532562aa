<#--
  SQE's productions, inserted into Calcite's Parser.jj (see config.fmpp for where each is hooked
  in). They build the nodes of io.sqe.engine.sql.ddl; all checks that need more than the next
  token live in those classes, which report them with a position through SqlSyntaxErrors.
-->

// ---------------------------------------------------------------- shared pieces

boolean SqeIfNotExists() :
{
}
{
    LOOKAHEAD(3) <IF> <NOT> <EXISTS> { return true; }
|
    { return false; }
}

boolean SqeIfExists() :
{
}
{
    LOOKAHEAD(2) <IF> <EXISTS> { return true; }
|
    { return false; }
}

/** A character string literal, such as a comment; adjacent literals are joined. */
SqlCharStringLiteral SqeCharString() :
{
    final SqlNode e;
}
{
    e = StringLiteral() {
        final SqlLiteral literal = SqlLiteral.unchain(e);
        if (!(literal instanceof SqlCharStringLiteral)) {
            throw SqlSyntaxErrors.error(literal.getParserPosition(), "Expected a character string");
        }
        return (SqlCharStringLiteral) literal;
    }
}

/** A property key: a possibly dotted identifier or a string. */
SqlNode SqePropertyKey() :
{
    final SqlNode key;
}
{
    (
        key = CompoundTableIdentifier()
    |
        key = SqeCharString()
    )
    { return key; }
}

void SqeAddProperty(List<SqlNode> list) :
{
    final SqlNode key;
    final SqlNode value;
}
{
    key = SqePropertyKey() <EQ> value = Expression(ExprContext.ACCEPT_NON_QUERY) {
        list.add(new SqlProperty(Span.of(key).end(this), key, value));
    }
}

/** {@code k = v, ...} without parentheses, as in Trino's SET PROPERTIES. */
SqlNodeList SqePropertyList() :
{
    final Span s = Span.of();
    final List<SqlNode> list = new ArrayList<SqlNode>();
}
{
    SqeAddProperty(list) ( <COMMA> SqeAddProperty(list) )* {
        return new SqlNodeList(list, s.addAll(list).pos());
    }
}

/** {@code (k = v, ...)}. */
SqlNodeList SqeParenthesizedProperties() :
{
    final Span s;
    final List<SqlNode> list = new ArrayList<SqlNode>();
}
{
    <LPAREN> { s = span(); }
    SqeAddProperty(list) ( <COMMA> SqeAddProperty(list) )*
    <RPAREN> { return new SqlNodeList(list, s.end(this)); }
}

/** A column's type and options, after its name: {@code type [NOT NULL | NULL] [COMMENT 'x']}. */
SqlColumnDeclaration SqeColumnTail(SqlIdentifier name) :
{
    final SqlDataTypeSpec type;
    boolean notNull = false;
    SqlCharStringLiteral comment = null;
}
{
    type = DataType()
    [ <NOT> <NULL> { notNull = true; } | <NULL> ]
    [ <COMMENT> comment = SqeCharString() ]
    {
        return new SqlColumnDeclaration(Span.of(name).end(this), name, type, notNull, comment);
    }
}

/** An element of CREATE TABLE's column list; the type is optional here and checked by the caller. */
void SqeAddTableElement(List<SqlNode> list) :
{
    final SqlIdentifier name;
    final SqlColumnDeclaration column;
    boolean notNull = false;
    SqlCharStringLiteral comment = null;
}
{
    name = SimpleIdentifier()
    (
        // COMMENT is a non-reserved word, so it could otherwise be read as the name of a type.
        LOOKAHEAD(1, { getToken(1).kind != COMMENT })
        column = SqeColumnTail(name) { list.add(column); }
    |
        [ <NOT> <NULL> { notNull = true; } | <NULL> ]
        [ <COMMENT> comment = SqeCharString() ]
        { list.add(new SqlColumnDeclaration(Span.of(name).end(this), name, null, notNull, comment)); }
    )
}

/** A partition or sort term: a column or an Iceberg transform of one, such as bucket(16, id). */
SqlTransform SqeTransform() :
{
    final String name;
    final Span s;
    final List<SqlNode> args = new ArrayList<SqlNode>();
    final SqlIdentifier column;
}
{
    LOOKAHEAD(2)
    (
        ( <YEAR> | <MONTH> | <DAY> | <HOUR> | <TRUNCATE> ) {
            name = token.image;
            s = span();
        }
    |
        name = Identifier() { s = span(); }
    )
    <LPAREN> SqeAddTransformArg(args) ( <COMMA> SqeAddTransformArg(args) )* <RPAREN> {
        return SqlTransform.of(s.end(this), name, args);
    }
|
    column = CompoundIdentifier() {
        return new SqlTransform(column.getParserPosition(), SqlTransform.Kind.IDENTITY, column, null);
    }
}

void SqeAddTransformArg(List<SqlNode> args) :
{
    final SqlNode e;
}
{
    ( e = UnsignedNumericLiteral() | e = CompoundIdentifier() ) { args.add(e); }
}

SqlNodeList SqeParenthesizedTransforms() :
{
    final Span s;
    final List<SqlNode> list = new ArrayList<SqlNode>();
    SqlNode e;
}
{
    <LPAREN> { s = span(); }
    e = SqeTransform() { list.add(e); }
    ( <COMMA> e = SqeTransform() { list.add(e); } )*
    <RPAREN> { return new SqlNodeList(list, s.end(this)); }
}

SqlSortField SqeSortField() :
{
    final SqlTransform term;
    boolean descending = false;
    SqlSortField.NullOrder nullOrder = SqlSortField.NullOrder.DEFAULT;
}
{
    term = SqeTransform()
    [ <ASC> | <DESC> { descending = true; } ]
    [
        <NULLS>
        (
            <FIRST> { nullOrder = SqlSortField.NullOrder.FIRST; }
        |
            <LAST> { nullOrder = SqlSortField.NullOrder.LAST; }
        )
    ]
    {
        return new SqlSortField(Span.of(term).end(this), term, descending, nullOrder);
    }
}

SqlNodeList SqeParenthesizedSortFields() :
{
    final Span s;
    final List<SqlNode> list = new ArrayList<SqlNode>();
    SqlNode e;
}
{
    <LPAREN> { s = span(); }
    e = SqeSortField() { list.add(e); }
    ( <COMMA> e = SqeSortField() { list.add(e); } )*
    <RPAREN> { return new SqlNodeList(list, s.end(this)); }
}

/**
 * {@code ([arg, ...])}: the arguments of a procedure, positional or named ({@code name => value},
 * Calcite's ARGUMENT_ASSIGNMENT call).
 */
SqlNodeList SqeProcedureArguments() :
{
    final Span s;
    final List<SqlNode> list = new ArrayList<SqlNode>();
}
{
    <LPAREN> { s = span(); }
    [
        SqeAddProcedureArgument(list)
        ( <COMMA> SqeAddProcedureArgument(list) )*
    ]
    <RPAREN> { return new SqlNodeList(list, s.end(this)); }
}

void SqeAddProcedureArgument(List<SqlNode> list) :
{
    final SqlIdentifier name;
    final SqlNode value;
}
{
    (
        LOOKAHEAD(2)
        name = SqeArgumentName() <NAMED_ARGUMENT_ASSIGNMENT> value = SqeArgumentValue() {
            list.add(SqlStdOperatorTable.ARGUMENT_ASSIGNMENT.createCall(Span.of(name, value).pos(), value, name));
        }
    |
        value = SqeArgumentValue() { list.add(value); }
    )
}

/**
 * A named argument's name: any identifier, or one of the reserved words that Iceberg's procedures
 * use as argument names ({@code table => 'db.t'}, {@code where => 'id > 3'}).
 */
SqlIdentifier SqeArgumentName() :
{
    final SqlIdentifier name;
}
{
    (
        name = SimpleIdentifier()
    |
        ( <TABLE> | <WHERE> | <TIMESTAMP> | <PARTITION> ) {
            name = new SqlIdentifier(unquotedIdentifier(), getPos());
        }
    )
    { return name; }
}

SqlNode SqeArgumentValue() :
{
    final SqlNode value;
}
{
    ( value = Default() | value = Expression(ExprContext.ACCEPT_SUB_QUERY) ) { return value; }
}

/** A procedure's name, whose segments may include the reserved word SYSTEM (system.expire_snapshots). */
SqlIdentifier SqeProcedureName() :
{
    final List<String> names = new ArrayList<String>();
    final List<SqlParserPos> positions = new ArrayList<SqlParserPos>();
}
{
    SqeAddProcedureNameSegment(names, positions)
    ( <DOT> SqeAddProcedureNameSegment(names, positions) )*
    {
        return new SqlIdentifier(names, null, SqlParserPos.sum(positions), positions);
    }
}

void SqeAddProcedureNameSegment(List<String> names, List<SqlParserPos> positions) :
{
}
{
    <SYSTEM> {
        names.add(unquotedIdentifier());
        positions.add(getPos());
    }
|
    AddIdentifierSegment(names, positions)
}

// ---------------------------------------------------------------- types

/** Trino's ARRAY(T) and MAP(K, V), Spark's ARRAY<T>, and STRING for VARCHAR. */
SqlTypeNameSpec SqeTypeName() :
{
    final Span s;
    final SqlDataTypeSpec element;
    final SqlDataTypeSpec key;
    final SqlDataTypeSpec value;
}
{
    <ARRAY> { s = span(); }
    (
        <LPAREN> element = DataType() <RPAREN>
    |
        <LT> element = DataType() <GT>
    )
    {
        return new SqlCollectionTypeNameSpec(element.getTypeNameSpec(), SqlTypeName.ARRAY, s.end(this));
    }
|
    <MAP> { s = span(); }
    <LPAREN> key = DataType() <COMMA> value = DataType() <RPAREN> {
        return new SqlMapTypeNameSpec(key, value, s.end(this));
    }
|
    <STRING> {
        return new SqlBasicTypeNameSpec(SqlTypeName.VARCHAR, getPos());
    }
}

// ---------------------------------------------------------------- time travel

/**
 * Replaces the template's optional FOR SYSTEM_TIME AS OF after a table name (sql/pom.xml
 * patches TableRef3 to call this), adding Trino's FOR VERSION AS OF and FOR TIMESTAMP AS OF.
 */
SqlNode SqeTableRefAsOf(SqlNode tableRef) :
{
    final SqlNode e;
}
{
    (
        LOOKAHEAD(2)
        e = Snapshot(tableRef)
    |
        e = SqeTableVersion(tableRef)
    )
    { return e; }
}

SqlNode SqeTableVersion(SqlNode tableRef) :
{
    final SqlTableVersion.Kind kind;
    final SqlNode value;
}
{
    <FOR>
    (
        <VERSION> { kind = SqlTableVersion.Kind.VERSION; }
    |
        <TIMESTAMP> { kind = SqlTableVersion.Kind.TIMESTAMP; }
    )
    <AS> <OF>
    value = Expression(ExprContext.ACCEPT_NON_QUERY) {
        return new SqlTableVersion(Span.of(tableRef).end(this), tableRef, kind, value);
    }
}

// ---------------------------------------------------------------- schemas, tables and views

SqlCreate SqeCreateSchema(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    SqlNodeList properties = SqlNodeList.EMPTY;
}
{
    <SCHEMA> ifNotExists = SqeIfNotExists() name = CompoundTableIdentifier()
    [ <WITH> properties = SqeParenthesizedProperties() ]
    {
        if (replace) {
            throw SqlSyntaxErrors.error(s.pos(), "CREATE OR REPLACE SCHEMA is not supported; use CREATE SCHEMA IF NOT EXISTS");
        }
        return new SqlCreateSchema(s.end(this), ifNotExists, name, properties);
    }
}

SqlCreate SqeCreateTable(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    final List<SqlNode> columns = new ArrayList<SqlNode>();
    Span columnSpan = null;
    SqlCharStringLiteral comment = null;
    SqlNodeList partitionBy = SqlNodeList.EMPTY;
    SqlNodeList sortedBy = SqlNodeList.EMPTY;
    SqlNodeList properties = SqlNodeList.EMPTY;
    SqlNode query = null;
}
{
    <TABLE> ifNotExists = SqeIfNotExists() name = CompoundTableIdentifier()
    [
        <LPAREN> { columnSpan = span(); }
        SqeAddTableElement(columns) ( <COMMA> SqeAddTableElement(columns) )*
        <RPAREN> { columnSpan.add(this); }
    ]
    [ <COMMENT> comment = SqeCharString() ]
    [ <PARTITIONED> <BY> partitionBy = SqeParenthesizedTransforms() ]
    [ <SORTED> <BY> sortedBy = SqeParenthesizedSortFields() ]
    [ <WITH> properties = SqeParenthesizedProperties() ]
    [ <AS> query = OrderedQueryOrExpr(ExprContext.ACCEPT_QUERY) ]
    {
        if (replace && ifNotExists) {
            throw SqlSyntaxErrors.error(s.pos(), "CREATE OR REPLACE TABLE cannot have IF NOT EXISTS");
        }
        if (query == null && columns.isEmpty()) {
            throw SqlSyntaxErrors.error(s.end(this), "CREATE TABLE needs a column list or AS query");
        }
        for (SqlNode node : columns) {
            final SqlColumnDeclaration column = (SqlColumnDeclaration) node;
            if (query == null && column.type() == null) {
                throw SqlSyntaxErrors.error(column.getParserPosition(), "Column " + column.name() + " needs a type");
            }
            if (query != null && column.type() != null) {
                throw SqlSyntaxErrors.error(column.getParserPosition(),
                    "CREATE TABLE ... AS query takes column names only; the query gives the types");
            }
        }
        return new SqlCreateTable(s.end(this), replace, ifNotExists, name,
            columnSpan == null ? SqlNodeList.EMPTY : new SqlNodeList(columns, columnSpan.pos()),
            comment, partitionBy, sortedBy, properties, query);
    }
}

SqlCreate SqeCreateView(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    SqlNodeList columns = SqlNodeList.EMPTY;
    SqlCharStringLiteral comment = null;
    final SqlNode query;
}
{
    <VIEW> ifNotExists = SqeIfNotExists() name = CompoundTableIdentifier()
    [ columns = ParenthesizedSimpleIdentifierList() ]
    [ <COMMENT> comment = SqeCharString() ]
    // Trino's clause (dbt-trino writes DEFINER by default): SQE's views always run with the
    // reader's rights, which never shows a reader more than INVOKER would.
    [ <SECURITY> ( <DEFINER> | <INVOKER> ) ]
    <AS> query = OrderedQueryOrExpr(ExprContext.ACCEPT_QUERY) {
        if (replace && ifNotExists) {
            throw SqlSyntaxErrors.error(s.pos(), "CREATE OR REPLACE VIEW cannot have IF NOT EXISTS");
        }
        return new SqlCreateView(s.end(this), replace, ifNotExists, name, columns, comment, query);
    }
}

// Trino's CREATE MATERIALIZED VIEW; its GRACE PERIOD is the max_staleness property here.
SqlCreate SqeCreateMaterializedView(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    SqlCharStringLiteral comment = null;
    SqlNodeList properties = SqlNodeList.EMPTY;
    final SqlNode query;
}
{
    <MATERIALIZED> <VIEW> ifNotExists = SqeIfNotExists() name = CompoundTableIdentifier()
    [ <COMMENT> comment = SqeCharString() ]
    [ <WITH> properties = SqeParenthesizedProperties() ]
    <AS> query = OrderedQueryOrExpr(ExprContext.ACCEPT_QUERY) {
        if (replace && ifNotExists) {
            throw SqlSyntaxErrors.error(s.pos(), "CREATE OR REPLACE MATERIALIZED VIEW cannot have IF NOT EXISTS");
        }
        return new SqlCreateMaterializedView(s.end(this), replace, ifNotExists, name, comment, properties, query);
    }
}

SqlDrop SqeDropMaterializedView(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
}
{
    <MATERIALIZED> <VIEW> ifExists = SqeIfExists() name = CompoundTableIdentifier() {
        return new SqlDropMaterializedView(s.end(this), ifExists, name);
    }
}

SqlNode SqeRefreshMaterializedView() :
{
    final Span s;
    final SqlIdentifier name;
}
{
    <REFRESH> { s = span(); } <MATERIALIZED> <VIEW> name = CompoundTableIdentifier() {
        return new SqlRefreshMaterializedView(s.end(this), name);
    }
}

SqlDrop SqeDropSchema(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
    boolean cascade = false;
}
{
    <SCHEMA> ifExists = SqeIfExists() name = CompoundTableIdentifier()
    [ <RESTRICT> | <CASCADE> { cascade = true; } ]
    {
        return new SqlDropSchema(s.end(this), ifExists, name, cascade);
    }
}

SqlDrop SqeDropTable(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
    boolean purge = false;
}
{
    <TABLE> ifExists = SqeIfExists() name = CompoundTableIdentifier()
    [ <PURGE> { purge = true; } ]
    {
        return new SqlDropTable(s.end(this), ifExists, name, purge);
    }
}

SqlDrop SqeDropView(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
}
{
    <VIEW> ifExists = SqeIfExists() name = CompoundTableIdentifier() {
        return new SqlDropView(s.end(this), ifExists, name);
    }
}

SqlNode SqeAlterView() :
{
    final Span s;
    final boolean ifExists;
    final SqlIdentifier name;
    final SqlIdentifier newName;
}
{
    <ALTER> { s = span(); } <VIEW> ifExists = SqeIfExists() name = CompoundTableIdentifier()
    <RENAME> <TO> newName = CompoundTableIdentifier() {
        return new SqlAlterViewRename(s.end(this), ifExists, name, newName);
    }
}

SqlTruncate SqeTruncateTable(Span s) :
{
    final SqlIdentifier name;
}
{
    <TABLE> name = CompoundTableIdentifier() {
        return new SqlTruncateTable(s.end(this), name);
    }
}

SqlNode SqeCommentOn() :
{
    final Span s;
    final SqlCommentOn.Target target;
    final SqlIdentifier name;
    SqlCharStringLiteral comment = null;
}
{
    <COMMENT> { s = span(); } <ON>
    (
        <TABLE> { target = SqlCommentOn.Target.TABLE; }
    |
        <VIEW> { target = SqlCommentOn.Target.VIEW; }
    |
        <COLUMN> { target = SqlCommentOn.Target.COLUMN; }
    )
    name = CompoundTableIdentifier()
    <IS>
    ( <NULL> | comment = SqeCharString() )
    {
        return new SqlCommentOn(s.end(this), target, name, comment);
    }
}

// ---------------------------------------------------------------- ALTER TABLE

SqlNode SqeAlterTable() :
{
    final Span s;
    final boolean ifExists;
    final SqlIdentifier name;
    final SqlNode node;
}
{
    <ALTER> { s = span(); } <TABLE> ifExists = SqeIfExists() name = CompoundTableIdentifier()
    (
        node = SqeAlterTableRename(s, ifExists, name)
    |
        node = SqeAlterTableAddColumn(s, ifExists, name)
    |
        node = SqeAlterTableDrop(s, ifExists, name)
    |
        node = SqeAlterTableAlterColumn(s, ifExists, name)
    |
        node = SqeAlterTableSetProperties(s, ifExists, name)
    |
        node = SqeAlterTableUnsetProperties(s, ifExists, name)
    |
        node = SqeAlterTableCreateRef(s, ifExists, name)
    |
        node = SqeAlterTableExecute(s, ifExists, name)
    )
    { return node; }
}

SqlNode SqeAlterTableRename(Span s, boolean ifExists, SqlIdentifier name) :
{
    final SqlIdentifier newName;
    final SqlIdentifier column;
}
{
    <RENAME>
    (
        <TO> newName = CompoundTableIdentifier() {
            return new SqlAlterTableRename(s.end(this), ifExists, name, newName);
        }
    |
        <COLUMN> column = CompoundIdentifier() <TO> newName = SimpleIdentifier() {
            return new SqlAlterTableRenameColumn(s.end(this), ifExists, name, column, newName);
        }
    )
}

SqlNode SqeAlterTableAddColumn(Span s, boolean ifExists, SqlIdentifier name) :
{
    final boolean ifNotExists;
    final SqlIdentifier columnName;
    final SqlColumnDeclaration column;
}
{
    <ADD> [ <COLUMN> ] ifNotExists = SqeIfNotExists()
    columnName = CompoundIdentifier() column = SqeColumnTail(columnName) {
        return new SqlAlterTableAddColumn(s.end(this), ifExists, name, ifNotExists, column);
    }
}

SqlNode SqeAlterTableDrop(Span s, boolean ifExists, SqlIdentifier name) :
{
    final boolean itemIfExists;
    final SqlIdentifier column;
    final SqlAlterTableCreateRef.RefKind refKind;
    final SqlIdentifier ref;
}
{
    <DROP>
    (
        <COLUMN> itemIfExists = SqeIfExists() column = CompoundIdentifier() {
            return new SqlAlterTableDropColumn(s.end(this), ifExists, name, itemIfExists, column);
        }
    |
        refKind = SqeRefKind() itemIfExists = SqeIfExists() ref = SimpleIdentifier() {
            return new SqlAlterTableDropRef(s.end(this), ifExists, name, refKind, itemIfExists, ref);
        }
    )
}

SqlAlterTableCreateRef.RefKind SqeRefKind() :
{
}
{
    <BRANCH> { return SqlAlterTableCreateRef.RefKind.BRANCH; }
|
    <TAG> { return SqlAlterTableCreateRef.RefKind.TAG; }
}

SqlNode SqeAlterTableAlterColumn(Span s, boolean ifExists, SqlIdentifier name) :
{
    final SqlIdentifier column;
    final SqlDataTypeSpec type;
}
{
    <ALTER> [ <COLUMN> ] column = CompoundIdentifier()
    (
        <SET>
        (
            <DATA> <TYPE> type = DataType() {
                return new SqlAlterTableAlterColumnType(s.end(this), ifExists, name, column, type);
            }
        |
            <NOT> <NULL> {
                return new SqlAlterTableAlterColumnNullability(s.end(this), ifExists, name, column, true);
            }
        )
    |
        <TYPE> type = DataType() {
            return new SqlAlterTableAlterColumnType(s.end(this), ifExists, name, column, type);
        }
    |
        <DROP> <NOT> <NULL> {
            return new SqlAlterTableAlterColumnNullability(s.end(this), ifExists, name, column, false);
        }
    )
}

SqlNode SqeAlterTableSetProperties(Span s, boolean ifExists, SqlIdentifier name) :
{
    final SqlNodeList properties;
}
{
    <SET>
    (
        <PROPERTIES> properties = SqePropertyList()
    |
        <TBLPROPERTIES> properties = SqeParenthesizedProperties()
    )
    {
        return new SqlAlterTableSetProperties(s.end(this), ifExists, name, properties);
    }
}

SqlNode SqeAlterTableUnsetProperties(Span s, boolean ifExists, SqlIdentifier name) :
{
    final boolean keysIfExist;
    final Span keySpan = Span.of();
    final List<SqlNode> keys = new ArrayList<SqlNode>();
    SqlNode key;
}
{
    <UNSET>
    (
        <PROPERTIES> keysIfExist = SqeIfExists()
        key = SqePropertyKey() { keys.add(key); }
        ( <COMMA> key = SqePropertyKey() { keys.add(key); } )*
    |
        <TBLPROPERTIES> keysIfExist = SqeIfExists()
        <LPAREN>
        key = SqePropertyKey() { keys.add(key); }
        ( <COMMA> key = SqePropertyKey() { keys.add(key); } )*
        <RPAREN>
    )
    {
        return new SqlAlterTableUnsetProperties(s.end(this), ifExists, name, keysIfExist,
            new SqlNodeList(keys, keySpan.addAll(keys).pos()));
    }
}

SqlNode SqeAlterTableCreateRef(Span s, boolean ifExists, SqlIdentifier name) :
{
    boolean replace = false;
    final SqlAlterTableCreateRef.RefKind refKind;
    final boolean ifNotExists;
    final SqlIdentifier ref;
    SqlNumericLiteral snapshotId = null;
    SqlNumericLiteral retain = null;
    ChronoUnit retainUnit = null;
}
{
    <CREATE> [ <OR> <REPLACE> { replace = true; } ]
    refKind = SqeRefKind() ifNotExists = SqeIfNotExists() ref = SimpleIdentifier()
    [ <AS> <OF> <VERSION> snapshotId = UnsignedNumericLiteral() ]
    [
        <RETAIN> retain = UnsignedNumericLiteral()
        (
            ( <DAY> | <DAYS> ) { retainUnit = ChronoUnit.DAYS; }
        |
            ( <HOUR> | <HOURS> ) { retainUnit = ChronoUnit.HOURS; }
        |
            ( <MINUTE> | <MINUTES> ) { retainUnit = ChronoUnit.MINUTES; }
        )
    ]
    {
        if (replace && ifNotExists) {
            throw SqlSyntaxErrors.error(s.end(this), "CREATE OR REPLACE " + refKind + " cannot have IF NOT EXISTS");
        }
        return new SqlAlterTableCreateRef(s.end(this), ifExists, name, replace, refKind, ifNotExists, ref,
            snapshotId, retain, retainUnit);
    }
}

SqlNode SqeAlterTableExecute(Span s, boolean ifExists, SqlIdentifier name) :
{
    final SqlIdentifier procedure;
    SqlNodeList arguments = null;
    SqlNode where = null;
}
{
    <EXECUTE> procedure = SimpleIdentifier()
    [ arguments = SqeProcedureArguments() ]
    [ where = Where() ]
    {
        // Trino's form without parentheses: ALTER TABLE t EXECUTE optimize
        if (arguments == null) {
            arguments = new SqlNodeList(procedure.getParserPosition());
        }
    }
    {
        return new SqlAlterTableExecute(s.end(this), ifExists, name, procedure, arguments, where);
    }
}

// ---------------------------------------------------------------- MERGE

SqlNode SqeMerge() :
{
    final Span s;
    final SqlIdentifier target;
    SqlIdentifier alias = null;
    final SqlNode source;
    final SqlNode condition;
    final List<SqlNode> clauses = new ArrayList<SqlNode>();
    SqlNode clause;
}
{
    <MERGE> { s = span(); } <INTO> target = CompoundTableIdentifier()
    [ [ <AS> ] alias = SimpleIdentifier() ]
    <USING> source = TableRef()
    <ON> condition = Expression(ExprContext.ACCEPT_SUB_QUERY)
    ( clause = SqeMergeClause() { clauses.add(clause); } )+
    {
        return new SqlMergeStatement(s.end(this), target, alias, source, condition,
            new SqlNodeList(clauses, Span.of(clauses).pos()));
    }
}

SqlNode SqeMergeClause() :
{
    final Span s;
    final SqlMergeClause.Match match;
    SqlNode condition = null;
    final SqlMergeClause.Action action;
    final List<SqlNode> columns = new ArrayList<SqlNode>();
    final List<SqlNode> values = new ArrayList<SqlNode>();
    SqlNodeList columnList;
}
{
    <WHEN> { s = span(); }
    (
        <MATCHED> { match = SqlMergeClause.Match.MATCHED; }
        [ <AND> condition = Expression(ExprContext.ACCEPT_SUB_QUERY) ]
        <THEN> action = SqeMergeUpdateOrDelete(columns, values)
    |
        LOOKAHEAD(4)
        <NOT> <MATCHED> <BY> <SOURCE> { match = SqlMergeClause.Match.NOT_MATCHED_BY_SOURCE; }
        [ <AND> condition = Expression(ExprContext.ACCEPT_SUB_QUERY) ]
        <THEN> action = SqeMergeUpdateOrDelete(columns, values)
    |
        <NOT> <MATCHED> [ <BY> <TARGET> ] { match = SqlMergeClause.Match.NOT_MATCHED; }
        [ <AND> condition = Expression(ExprContext.ACCEPT_SUB_QUERY) ]
        <THEN> <INSERT> { action = SqlMergeClause.Action.INSERT; }
        [ columnList = ParenthesizedSimpleIdentifierList() { columns.addAll(columnList.getList()); } ]
        <VALUES> <LPAREN>
        SqeAddMergeValue(values) ( <COMMA> SqeAddMergeValue(values) )*
        <RPAREN>
    )
    {
        final SqlParserPos pos = s.end(this);
        return new SqlMergeClause(pos, match, condition, action,
            new SqlNodeList(columns, Span.of(columns).pos()), new SqlNodeList(values, Span.of(values).pos()));
    }
}

SqlMergeClause.Action SqeMergeUpdateOrDelete(List<SqlNode> columns, List<SqlNode> values) :
{
    SqlIdentifier column;
}
{
    <DELETE> { return SqlMergeClause.Action.DELETE; }
|
    <UPDATE> <SET>
    column = CompoundIdentifier() { columns.add(column); } <EQ> SqeAddMergeValue(values)
    (
        <COMMA>
        column = CompoundIdentifier() { columns.add(column); } <EQ> SqeAddMergeValue(values)
    )*
    { return SqlMergeClause.Action.UPDATE; }
}

void SqeAddMergeValue(List<SqlNode> values) :
{
    final SqlNode e;
}
{
    ( e = Default() | e = Expression(ExprContext.ACCEPT_SUB_QUERY) ) { values.add(e); }
}

// ---------------------------------------------------------------- users

/** A role: a name, or a string for names that are no SQL identifiers; kept as an identifier. */
SqlIdentifier SqeRoleName() :
{
    final SqlIdentifier name;
    final SqlCharStringLiteral text;
}
{
    (
        name = SimpleIdentifier() { return name; }
    |
        text = SqeCharString() {
            return new SqlIdentifier(text.getValueAs(String.class), text.getParserPosition());
        }
    )
}

/** {@code (role, ...)}, possibly empty. */
SqlNodeList SqeRoleList() :
{
    final Span s;
    final List<SqlNode> roles = new ArrayList<SqlNode>();
    SqlIdentifier role;
}
{
    <LPAREN> { s = span(); }
    [
        role = SqeRoleName() { roles.add(role); }
        ( <COMMA> role = SqeRoleName() { roles.add(role); } )*
    ]
    <RPAREN> {
        return new SqlNodeList(roles, s.end(this));
    }
}

SqlCreate SqeCreateUser(Span s, boolean replace) :
{
    final boolean ifNotExists;
    final SqlIdentifier name;
    final SqlCharStringLiteral password;
    SqlNodeList roles = SqlNodeList.EMPTY;
}
{
    <USER> ifNotExists = SqeIfNotExists() name = SimpleIdentifier()
    [ <WITH> ] <PASSWORD> password = SqeCharString()
    [ <ROLES> roles = SqeRoleList() ]
    {
        if (replace) {
            throw SqlSyntaxErrors.error(s.pos(), "CREATE OR REPLACE USER is not supported; use ALTER USER");
        }
        return new SqlCreateUser(s.end(this), ifNotExists, name, password, roles);
    }
}

SqlNode SqeAlterUser() :
{
    final Span s;
    SqlIdentifier name = null;
    SqlCharStringLiteral password = null;
    SqlNodeList roles = null;
}
{
    <ALTER> { s = span(); } <USER>
    ( <CURRENT_USER> | name = SimpleIdentifier() )
    (
        <SET>
        (
            <PASSWORD> password = SqeCharString()
        |
            <ROLES> roles = SqeRoleList()
        )
    |
        // PostgreSQL's spelling.
        [ <WITH> ] <PASSWORD> password = SqeCharString()
    )
    {
        return new SqlAlterUser(s.end(this), name, password, roles);
    }
}

SqlDrop SqeDropUser(Span s, boolean replace) :
{
    final boolean ifExists;
    final SqlIdentifier name;
}
{
    <USER> ifExists = SqeIfExists() name = SimpleIdentifier() {
        return new SqlDropUser(s.end(this), ifExists, name);
    }
}

// ---------------------------------------------------------------- session and utility statements

/** SET [SESSION] name = value and RESET [SESSION] name | ALL; also behind ALTER SYSTEM|SESSION. */
SqlSetOption SqeSetOption(Span s, String scope) :
{
    SqlIdentifier name;
    final SqlNode value;
}
{
    <SET> { s.add(this); }
    [ LOOKAHEAD(<SESSION> CompoundIdentifier() <EQ>) <SESSION> ]
    name = CompoundIdentifier()
    <EQ>
    (
        <ON> { value = new SqlIdentifier(token.image.toUpperCase(Locale.ROOT), getPos()); }
    |
        value = Expression(ExprContext.ACCEPT_NON_QUERY)
    )
    {
        return new SqlSetOption(s.end(value), scope, name, value);
    }
|
    <RESET> { s.add(this); }
    [ LOOKAHEAD(<SESSION> (CompoundIdentifier() | <ALL>)) <SESSION> ]
    (
        name = CompoundIdentifier()
    |
        <ALL> { name = new SqlIdentifier(token.image.toUpperCase(Locale.ROOT), getPos()); }
    )
    {
        return new SqlSetOption(s.end(name), scope, name, null);
    }
}

/**
 * {@code EXPLAIN query} and {@code EXPLAIN ANALYZE query} (as in Trino, PostgreSQL and DuckDB),
 * besides Calcite's {@code EXPLAIN PLAN [...] FOR query}; and {@code EXPLAIN REFRESH MATERIALIZED
 * VIEW name}, which the write path answers. The statement explained may be SQE's MERGE (every form
 * it runs, where Calcite's takes one WHEN of each kind) and {@code CREATE [OR REPLACE] TABLE}.
 */
SqlNode SqeExplain() :
{
    final Span s;
    SqlNode stmt;
    SqlExplainLevel detailLevel = SqlExplainLevel.EXPPLAN_ATTRIBUTES;
    SqlExplain.Depth depth = SqlExplain.Depth.PHYSICAL;
    SqlExplainFormat format = SqlExplainFormat.TEXT;
}
{
    <EXPLAIN> { s = span(); }
    (
        <ANALYZE> stmt = SqlQueryOrDml() {
            return new SqlExplainAnalyze(s.end(this), stmt, nDynamicParams);
        }
    |
        stmt = SqeRefreshMaterializedView() {
            return ((SqlRefreshMaterializedView) stmt).explained(s.end(this));
        }
    |
        LOOKAHEAD(2)
        <PLAN>
        [ detailLevel = ExplainDetailLevel() ]
        depth = ExplainDepth()
        (
            LOOKAHEAD(2)
            <AS> <XML> { format = SqlExplainFormat.XML; }
        |
            LOOKAHEAD(2)
            <AS> <JSON> { format = SqlExplainFormat.JSON; }
        |
            <AS> <DOT_FORMAT> { format = SqlExplainFormat.DOT; }
        |
            { format = SqlExplainFormat.TEXT; }
        )
        <FOR> stmt = SqeExplained()
    |
        stmt = SqeExplained()
    )
    {
        return new SqlExplain(s.end(this), stmt, detailLevel.symbol(SqlParserPos.ZERO),
            depth.symbol(SqlParserPos.ZERO), format.symbol(SqlParserPos.ZERO), nDynamicParams);
    }
}

/** A statement EXPLAIN describes without running it: a query, a DML statement, or CREATE TABLE. */
SqlNode SqeExplained() :
{
    final Span s;
    boolean replace = false;
    final SqlNode stmt;
}
{
    (
        // SQE's MERGE, not Calcite's, which SqlQueryOrDml would take.
        LOOKAHEAD(1) stmt = SqeMerge()
    |
        <CREATE> { s = span(); } [ <OR> <REPLACE> { replace = true; } ] stmt = SqeCreateTable(s, replace)
    |
        stmt = SqlQueryOrDml()
    )
    { return stmt; }
}

SqlNode SqeUse() :
{
    final Span s;
    final SqlIdentifier name;
}
{
    <USE> { s = span(); } name = CompoundTableIdentifier() {
        return new SqlUse(s.end(this), name);
    }
}

SqlNode SqeShow() :
{
    final Span s;
    final SqlShowCreate.ObjectKind objectKind;
    final SqlIdentifier name;
    final SqlShow.Kind kind;
    SqlIdentifier from = null;
    SqlCharStringLiteral like = null;
}
{
    <SHOW> { s = span(); }
    (
        <CREATE>
        (
            <TABLE> { objectKind = SqlShowCreate.ObjectKind.TABLE; }
        |
            <VIEW> { objectKind = SqlShowCreate.ObjectKind.VIEW; }
        |
            <MATERIALIZED> <VIEW> { objectKind = SqlShowCreate.ObjectKind.MATERIALIZED_VIEW; }
        |
            <SCHEMA> { objectKind = SqlShowCreate.ObjectKind.SCHEMA; }
        )
        name = CompoundTableIdentifier() {
            return new SqlShowCreate(s.end(this), objectKind, name);
        }
    |
        // These words are non-reserved, so the identifier below could match them too: they win.
        LOOKAHEAD(1)
        (
            <CATALOGS> { kind = SqlShow.Kind.CATALOGS; }
        |
            <SCHEMAS> { kind = SqlShow.Kind.SCHEMAS; }
            [ ( <FROM> | <IN> ) from = CompoundTableIdentifier() ]
        |
            <TABLES> { kind = SqlShow.Kind.TABLES; }
            [ ( <FROM> | <IN> ) from = CompoundTableIdentifier() ]
        |
            <COLUMNS> { kind = SqlShow.Kind.COLUMNS; }
            ( <FROM> | <IN> ) from = CompoundTableIdentifier()
        |
            <QUERIES> { kind = SqlShow.Kind.QUERIES; }
        |
            <SESSION> { kind = SqlShow.Kind.SESSION; }
        |
            <FUNCTIONS> { kind = SqlShow.Kind.FUNCTIONS; }
        )
        [ <LIKE> like = SqeCharString() ]
        {
            return new SqlShow(s.end(this), kind, from, like);
        }
    |
        // Without this, a misspelled word after SHOW fails the statement's lookahead and the error
        // points at SHOW instead of the word.
        name = SimpleIdentifier() {
            throw SqlSyntaxErrors.error(name.getParserPosition(), "Unknown SHOW statement: SHOW " + name
                + "; use SHOW CATALOGS, SCHEMAS, TABLES, COLUMNS, FUNCTIONS, SESSION, QUERIES or CREATE TABLE|VIEW|SCHEMA");
        }
    )
}

SqlNode SqeTransactionStatement() :
{
    final Span s;
    final SqlTransactionStatement.Action action;
    final List<String> modes = new ArrayList<String>();
}
{
    (
        <BEGIN> { s = span(); action = SqlTransactionStatement.Action.BEGIN; }
        [ <TRANSACTION> | <WORK> ]
        [ SqeTransactionMode(modes) ( <COMMA> SqeTransactionMode(modes) )* ]
    |
        <START> { s = span(); action = SqlTransactionStatement.Action.BEGIN; }
        <TRANSACTION>
        [ SqeTransactionMode(modes) ( <COMMA> SqeTransactionMode(modes) )* ]
    |
        <COMMIT> { s = span(); action = SqlTransactionStatement.Action.COMMIT; }
        [ <WORK> ]
    |
        <ROLLBACK> { s = span(); action = SqlTransactionStatement.Action.ROLLBACK; }
        [ <WORK> ]
    )
    {
        return new SqlTransactionStatement(s.end(this), action, modes);
    }
}

/** A transaction mode of START TRANSACTION, as Trino's JDBC driver sends them. */
void SqeTransactionMode(List<String> modes) :
{
}
{
    <ISOLATION> <LEVEL>
    (
        <READ>
        (
            <UNCOMMITTED> { modes.add("READ UNCOMMITTED"); }
        |
            <COMMITTED> { modes.add("READ COMMITTED"); }
        )
    |
        <REPEATABLE> <READ> { modes.add("REPEATABLE READ"); }
    |
        <SERIALIZABLE> { modes.add("SERIALIZABLE"); }
    )
|
    <READ>
    (
        <WRITE> { modes.add("READ WRITE"); }
    |
        <ONLY> { modes.add("READ ONLY"); }
    )
}

SqlNode SqeCallProcedure() :
{
    final Span s;
    final SqlIdentifier name;
    final SqlNodeList arguments;
}
{
    <CALL> { s = span(); } name = SqeProcedureName() arguments = SqeProcedureArguments() {
        return new SqlCallProcedure(s.end(this), name, arguments);
    }
}

SqlNode SqeAnalyzeTable() :
{
    final Span s;
    final SqlIdentifier name;
}
{
    <ANALYZE> { s = span(); } [ <TABLE> ] name = CompoundTableIdentifier() {
        return new SqlAnalyzeTable(s.end(this), name);
    }
}

/** {@code expr::type}, PostgreSQL's cast: the same as CAST(expr AS type). */
void SqeInfixCast(List<Object> list, ExprContext exprContext, Span s) :
{
    final SqlDataTypeSpec type;
}
{
    <INFIX_CAST> {
        checkNonQueryExpression(exprContext);
    }
    type = DataType() {
        list.add(new SqlParserUtil.ToTreeListItem(SqlLibraryOperators.INFIX_CAST, s.pos()));
        list.add(type);
    }
}

/** {@code current_schema()}: PostgreSQL's spelling of the niladic {@code current_schema}. */
SqlNode SqeCurrentSchemaCall() :
{
    final Span s;
}
{
    <CURRENT_SCHEMA> { s = span(); } <LPAREN> <RPAREN> {
        return SqlStdOperatorTable.CURRENT_SCHEMA.createCall(s.end(this));
    }
}

/**
 * Trino's typed literals: {@code DOUBLE '1.5'}, {@code REAL '1'}, {@code BIGINT '7'}, {@code INTEGER},
 * {@code SMALLINT} and {@code TINYINT} are casts of the text; {@code DECIMAL '1.20'} is the exact
 * number as written; {@code JSON '[1]'} is json_parse of the text.
 */
SqlNode SqeTypedLiteral() :
{
    final Span s;
    SqlTypeName type = null;
    boolean json = false;
    final SqlNode text;
}
{
    (
        <DOUBLE> { type = SqlTypeName.DOUBLE; }
    |   <REAL> { type = SqlTypeName.REAL; }
    |   <BIGINT> { type = SqlTypeName.BIGINT; }
    |   <INTEGER> { type = SqlTypeName.INTEGER; }
    |   <SMALLINT> { type = SqlTypeName.SMALLINT; }
    |   <TINYINT> { type = SqlTypeName.TINYINT; }
    |   <DECIMAL> { type = SqlTypeName.DECIMAL; }
    |   <JSON> { json = true; }
    )
    { s = span(); }
    <QUOTED_STRING> {
        String value = SqlParserUtil.parseString(token.image);
        SqlNode literal = SqlLiteral.createCharString(value, getPos());
        if (json) {
            return createCall(new SqlIdentifier("JSON_PARSE", s.pos()), s.end(this),
                SqlFunctionCategory.USER_DEFINED_FUNCTION, null, ImmutableList.of(literal));
        }
        if (type == SqlTypeName.DECIMAL) {
            try {
                new java.math.BigDecimal(value.trim());
            } catch (NumberFormatException e) {
                throw SqlUtil.newContextException(s.end(this), RESOURCE.illegalLiteral("DECIMAL", value, e.getMessage()));
            }
            return SqlLiteral.createExactNumeric(value.trim(), s.end(this));
        }
        return SqlStdOperatorTable.CAST.createCall(s.end(this), literal,
            new SqlDataTypeSpec(new SqlBasicTypeNameSpec(type, s.pos()), s.pos()));
    }
}

/** Trino's {@code normalize(string [, NFC | NFD | NFKC | NFKD])}; NORMALIZE is a reserved word. */
SqlNode SqeNormalizeCall() :
{
    final Span s;
    final List<SqlNode> args = new ArrayList<SqlNode>();
}
{
    <NORMALIZE> { s = span(); }
    <LPAREN> AddExpression(args, ExprContext.ACCEPT_SUB_QUERY)
    [
        <COMMA> <IDENTIFIER> {
            args.add(SqlLiteral.createCharString(token.image.toUpperCase(Locale.ROOT), getPos()));
        }
    ]
    <RPAREN> {
        return createCall(new SqlIdentifier("NORMALIZE", s.pos()), s.end(this),
            SqlFunctionCategory.USER_DEFINED_FUNCTION, null, args);
    }
}

/** PREPARE name FROM statement: the statement is kept by its text, from its first token on. */
SqlNode SqePrepare() :
{
    final Span s;
    final SqlIdentifier name;
    final Token first;
    final SqlNode statement;
}
{
    <PREPARE> { s = span(); } name = SimpleIdentifier() <FROM>
    { first = getToken(1); }
    statement = SqlStmt() {
        return new SqlPrepare(s.end(this), name, statement, new SqlParserPos(first.beginLine, first.beginColumn));
    }
}

/** EXECUTE name [USING value, ...] and EXECUTE IMMEDIATE 'statement' [USING value, ...]. */
SqlNode SqeExecute() :
{
    final Span s;
    SqlIdentifier name = null;
    SqlNode text = null;
    final List<SqlNode> arguments = new ArrayList<SqlNode>();
}
{
    <EXECUTE> { s = span(); }
    (
        <IMMEDIATE> text = StringLiteral()
    |
        name = SimpleIdentifier()
    )
    [
        <USING> SqeExecuteArgument(arguments) ( <COMMA> SqeExecuteArgument(arguments) )*
    ]
    {
        return new SqlExecute(s.end(this), name, (SqlLiteral) text, arguments);
    }
}

/**
 * A value of EXECUTE ... USING: an expression, or a typed literal such as INTEGER '5' or
 * DOUBLE '1.5', which Trino's JDBC driver sends for every parameter. A typed literal is a cast of
 * the text to the type; DECIMAL '1.23' is the exact number, whose digits give its precision and
 * scale, as in Trino. DATE, TIME and TIMESTAMP literals stay literals, which keep their fraction.
 */
void SqeExecuteArgument(List<SqlNode> arguments) :
{
    final SqlDataTypeSpec type;
    final SqlNode text;
    final SqlNode value;
}
{
    (
        LOOKAHEAD( ( <DATE> | <TIME> | <TIMESTAMP> | <INTERVAL> ) <QUOTED_STRING> )
        value = Expression(ExprContext.ACCEPT_NON_QUERY)
    |
        LOOKAHEAD( DataType() <QUOTED_STRING> )
        type = DataType() text = StringLiteral() {
            String digits = ((SqlLiteral) text).getValueAs(String.class).trim();
            String typeName = type.getTypeName().getSimple().toUpperCase(java.util.Locale.ROOT);
            if ((typeName.equals("DECIMAL") || typeName.equals("NUMERIC") || typeName.equals("DEC"))
                && type.getTypeNameSpec() instanceof SqlBasicTypeNameSpec
                && ((SqlBasicTypeNameSpec) type.getTypeNameSpec()).getPrecision() < 0) {
                if (!digits.matches("[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)")) {
                    throw SqlSyntaxErrors.error(text.getParserPosition(), "Invalid DECIMAL literal '" + digits + "'");
                }
                value = SqlLiteral.createExactNumeric(digits.startsWith("+") ? digits.substring(1) : digits, text.getParserPosition());
            } else {
                value = SqlStdOperatorTable.CAST.createCall(text.getParserPosition(), text, type);
            }
        }
    |
        value = Expression(ExprContext.ACCEPT_NON_QUERY)
    )
    {
        arguments.add(value);
    }
}

/** DEALLOCATE PREPARE name. */
SqlNode SqeDeallocate() :
{
    final Span s;
    final SqlIdentifier name;
}
{
    <DEALLOCATE> { s = span(); } <PREPARE> name = SimpleIdentifier() {
        return new SqlDeallocate(s.end(this), name);
    }
}

/** DESCRIBE INPUT name and DESCRIBE OUTPUT name, of a prepared statement. */
SqlNode SqeDescribePrepared() :
{
    final Span s;
    final boolean input;
    final SqlIdentifier name;
}
{
    <DESCRIBE> { s = span(); }
    (
        <INPUT> { input = true; }
    |
        <OUTPUT> { input = false; }
    )
    name = SimpleIdentifier() {
        return new SqlDescribePrepared(s.end(this), input, name);
    }
}
