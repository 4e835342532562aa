package io.sqe.engine.plan;

import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqeTypeSystem;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import org.apache.calcite.DataContext;
import org.apache.calcite.rel.type.TimeFrameSet;
import org.apache.calcite.rel.type.TimeFrames;

/** The variables Calcite's generated code reads of a session: the clock, the time zone, the user. */
public final class SessionVariables {
  private static final TimeFrameSet TIME_FRAMES = SqeTypeSystem.INSTANCE.deriveTimeFrameSet(TimeFrames.CORE);

  private SessionVariables() {}

  /** A new, modifiable map of the variables, the clock read now. */
  public static Map<String, Object> of(Session session) {
    Map<String, Object> values = new HashMap<>();
    long now = System.currentTimeMillis();
    TimeZone zone = TimeZone.getTimeZone(session.timeZone());
    long offset = zone.getOffset(now);
    values.put(DataContext.Variable.UTC_TIMESTAMP.camelName, now);
    values.put(DataContext.Variable.CURRENT_TIMESTAMP.camelName, now + offset);
    values.put(DataContext.Variable.LOCAL_TIMESTAMP.camelName, now + offset);
    values.put(DataContext.Variable.TIME_ZONE.camelName, zone);
    values.put(DataContext.Variable.USER.camelName, session.principal().user());
    values.put(DataContext.Variable.SYSTEM_USER.camelName, session.principal().user());
    values.put(DataContext.Variable.LOCALE.camelName, Locale.ROOT);
    values.put(DataContext.Variable.TIME_FRAME_SET.camelName, TIME_FRAMES);
    return values;
  }
}
