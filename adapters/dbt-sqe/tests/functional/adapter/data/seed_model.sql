drop table if exists {schema}.on_model_hook;

create table {schema}.on_model_hook (
    test_state       varchar,
    target_dbname    varchar,
    target_host      varchar,
    target_name      varchar,
    target_schema    varchar,
    target_type      varchar,
    target_user      varchar,
    target_pass      varchar,
    target_threads   integer,
    run_started_at   varchar,
    invocation_id    varchar,
    thread_id        varchar
)
