/**
 * Where tables keep their files, and what the write path may delete: names that become directory
 * names, locations and path properties a statement chooses, and the other tables and views whose
 * files must survive a table's maintenance.
 */
package io.sqe.write.storage;
