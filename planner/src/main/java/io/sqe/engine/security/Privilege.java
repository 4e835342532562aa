package io.sqe.engine.security;

import java.util.EnumSet;
import java.util.Set;

/** What a principal may do to a table or view; OWNERSHIP implies all the others. */
public enum Privilege {
  SELECT,
  INSERT,
  UPDATE,
  DELETE,
  CREATE,
  DROP,
  ALTER,
  OWNERSHIP;

  /** The privileges a list grants, with OWNERSHIP expanded to every privilege. */
  static Set<Privilege> expand(Iterable<Privilege> granted) {
    Set<Privilege> result = EnumSet.noneOf(Privilege.class);
    for (Privilege privilege : granted) {
      if (privilege == OWNERSHIP) {
        return EnumSet.allOf(Privilege.class);
      }
      result.add(privilege);
    }
    return result;
  }
}
